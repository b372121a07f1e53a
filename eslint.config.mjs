import * as effectEslint from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

// Effect's own formatting (dprint through ESLint) plus typescript-eslint's recommended rules.
export default tseslint.config(
  {
    ignores: [
      "**/build/**",
      "**/dist/**",
      "**/node_modules/**",
      "**/coverage/**",
      "packages/*/docs/**",
      "effect4/packages/*/docs/**",
      // the Effect 4 line's copies of packages/, linted there
      "effect4/packages/*/src/**",
      "effect4/packages/*/test/**",
      "effect4/packages/*/bin/**",
      // the site's generated scratch: its ts blocks as modules, and VitePress's cache
      "site/.snippets/**",
      "site/src/.vitepress/cache/**"
    ]
  },
  ...tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    rules: {
      "@effect/dprint": [
        "error",
        {
          config: {
            indentWidth: 2,
            lineWidth: 120,
            semiColons: "asi",
            quoteStyle: "alwaysDouble",
            trailingCommas: "never",
            operatorPosition: "maintain",
            "arrowFunction.useParentheses": "force"
          }
        }
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-namespace": "off"
    }
  },
  {
    // library code states its types: `any` would switch the checks off for its users too
    files: ["packages/{core,lock,dynamodb,testing,cli}/src/**/*.ts", "effect4/packages/*/src/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "error" }
  },
  {
    files: ["packages/*/src/**/*.ts", "effect4/packages/*/src/**/*.ts"],
    rules: {
      // library code imports effect per module, so that bundlers keep only what it uses; tests may use the barrel
      "@effect/no-import-from-barrel-package": ["error", { packageNames: ["effect"] }]
    }
  },
  {
    // the core is the rules without a runtime: both Effect lines build on it, so it may import neither
    files: ["packages/core/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ["effect", "effect/*", "@effect/*", "@leasehold/*", "@aws-sdk/*"],
          message: "the core is plain TypeScript: it imports no runtime, SDK or shell"
        }]
      }]
    }
  },
  {
    // CommonJS programs (the package check's) load packages the CommonJS way.
    files: ["**/*.cjs"],
    rules: { "@typescript-eslint/no-require-imports": "off" }
  }
)
