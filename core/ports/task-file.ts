/** DATA_DIR/tasks.md, the legacy markdown task list that older clients read and overwrite whole (core/legacy/markdown-tasks.ts). */
export interface MarkdownTaskFile {
  /** Absolute path, reported to the client as `path`. */
  readonly path: string;
  /** The file's text, or undefined when it does not exist yet. */
  read(): Promise<string | undefined>;
  /** Replaces the file atomically. */
  write(text: string): Promise<void>;
}
