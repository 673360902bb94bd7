/**
 * What the service learns from a file's bytes themselves (docs/files.md), not from what a client
 * says of them: the type its signature shows, and its SHA-256.
 */
export interface FileInspector {
  /** How many of a file's first bytes `detect` looks at. */
  readonly headBytes: number;
  /**
   * The media type a file's first bytes (up to `headBytes`) show by their signature (`image/png`),
   * undefined when they show none this inspector knows (text, HTML, an empty file…).
   */
  detect(head: Uint8Array): Promise<string | undefined>;
  /**
   * Whether files of `contentType` carry a signature `detect` knows (PNG, JPEG, GIF, WebP, PDF…):
   * bytes claimed to be of such a type must show it.
   */
  hasSignature(contentType: string): boolean;
  /** A SHA-256 fed chunk by chunk, answered in lower-case hex. */
  sha256(): RunningDigest;
}

export interface RunningDigest {
  update(chunk: Uint8Array): void;
  /** The digest of every chunk given, lower-case hex (once). */
  hex(): string;
}
