/** scripts/build.mjs: compiles the stale workspace packages' src/ to dist/; the rebuilt ones' directories. */
export function build(options?: { force?: boolean; quiet?: boolean }): Promise<string[]>;
export function buildablePackages(): string[];
