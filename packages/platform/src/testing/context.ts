// Values the vitest globalSetup hands to every spec file (inject()).
declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    testRunId: string;
  }
}

export {};
