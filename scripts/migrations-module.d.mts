// Types of scripts/migrations-module.mjs (plain JavaScript, so that esbuild.config.mjs runs it without tsx).

export declare const migrationsDirectory: string;
export declare const migrationsModuleFile: string;
/** A migration file's SQL: everything after the `--` lines it starts with (its header). */
export declare function migrationSql(text: string): string;
/** The migrations of the folder in the order they apply. */
export declare function migrationFiles(directory?: string): Array<{ file: string; name: string; sql: string }>;
/** The source of infra/db/migrations/index.ts, as the folder's .sql files make it today. */
export declare function migrationsModuleSource(directory?: string): string;
/** Writes infra/db/migrations/index.ts when it differs from what the folder makes; answers whether it did. */
export declare function writeMigrationsModule(): boolean;
