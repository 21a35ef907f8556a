/** scripts/check-deps.mjs: the dependency rules between the workspaces. */
export interface DependencyViolation {
  rule:
    | 'app-imported-by-package'
    | 'projection-imports-http'
    | 'undeclared-dependency'
    | 'unused-workspace-dependency'
    | 'foreign-internals'
    | 'production-imports-test-helper';
  /** Relative to the root. */
  file: string;
  message: string;
}
/** Every broken rule in the repository at root. */
export function checkDependencies(root: string): DependencyViolation[];
/** The module specifiers a source file's text imports. */
export function importsOf(text: string): string[];
