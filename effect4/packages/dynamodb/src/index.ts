// Filled in as the package is ported from the Effect 3 line.
export {}
