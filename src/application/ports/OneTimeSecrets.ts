/** A fresh e-mailed token: what the link carries, and what is stored of it. */
export interface OneTimeSecret {
  /** `<selector>.<verifier>`, URL-safe; put in the mail only, never stored or queued. */
  readonly token: string;
  /** Finds the stored row; not secret on its own (a queued mail carries it, not the token). */
  readonly selector: string;
  readonly verifierHash: string;
}

/**
 * Makes and checks e-mailed tokens. Promises: a token cannot be told from its selector and stored
 * hash without a key that no store of the service holds (at least 128 bits of it unknown to a
 * reader of every store); `tokenOf` gives, for the selector of a token `create` made, that same
 * token, so a queued mail keeps only the selector and its link is made when it is sent; `parse`
 * and `tokenOf` answer `undefined` for anything not shaped like a token or selector (never throw);
 * `matches` takes the same time wherever the first difference is.
 */
export interface OneTimeSecrets {
  create(): OneTimeSecret;
  tokenOf(selector: string): string | undefined;
  parse(token: string): { readonly selector: string; readonly verifier: string } | undefined;
  matches(verifier: string, verifierHash: string): boolean;
}
