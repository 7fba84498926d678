// Lint configuration: eslint's and typescript-eslint's recommended rules over the sources, tests
// and benchmarks. Formatting is prettier's job (npm run format / format:check).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "fixtures/", "templates/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-explicit-any": "warn",
      "no-empty": ["error", { allowEmptyCatch: true }],
      // A variable read by a closure before its single assignment (late binding) stays `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Decorators and class registries take arbitrary constructors.
      "@typescript-eslint/no-unsafe-function-type": "off",
    },
  },
  // CommonJS files (bin/tsop.cjs: the launcher, CommonJS so start-up skips the ES module loader).
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
