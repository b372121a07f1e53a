/** The suffix of a module's Effect 4 version, in place of `.ts`. */
export declare const effect4Suffix = ".effect4.ts";
/**
 * Brings the Effect 4 line's copies up to date: writes what changed (so that incremental builds stay incremental),
 * removes what no longer has a source. Returns how many files it wrote and removed.
 */
export declare const assemble: () => {
    readonly written: number;
    readonly removed: number;
};
//# sourceMappingURL=effect4Sources.d.ts.map