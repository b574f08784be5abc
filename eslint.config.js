// Lint rules that catch what the type checker cannot, each kept for a failure it would have
// prevented. Type-aware (the project's tsconfig), so it runs over the source the checker reads.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "client/dist/**", ".tmp/**", "data/**"] },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: { allowDefaultProject: ["*.ts"] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    // The generated client carries a blanket disable for linters with wider rule sets.
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules: {
      // A promise returned un-awaited from a try whose finally throws is abandoned, and its
      // rejection ends the process (an instance died this way when Redis went away mid-request).
      "@typescript-eslint/return-await": ["error", "in-try-catch"],
      // A promise nobody awaits or catches does the same the moment it rejects.
      "@typescript-eslint/no-floating-promises": ["error", { ignoreVoid: true }],
    },
  },
);
