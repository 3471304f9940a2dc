declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    pgKind: 'embedded' | 'external';
    /** The Chromium the browser tests drive (test/support/chromium-setup.ts). */
    chromiumPath: string;
  }
}
export {};
