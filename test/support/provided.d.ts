declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    pgKind: 'embedded' | 'external';
  }
}
export {};
