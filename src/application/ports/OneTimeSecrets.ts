/** A fresh e-mailed token: what the link carries, and what is stored of it. */
export interface OneTimeSecret {
  /** `<selector>.<verifier>`, URL-safe; sent, never stored. */
  readonly token: string;
  readonly selector: string;
  readonly verifierHash: string;
}

/**
 * Makes and checks e-mailed tokens. Promises: the verifier has at least 128 random bits; `parse`
 * answers `undefined` for anything not shaped like a token (never throws); `matches` takes the same
 * time wherever the first difference is.
 */
export interface OneTimeSecrets {
  create(): OneTimeSecret;
  parse(token: string): { readonly selector: string; readonly verifier: string } | undefined;
  matches(verifier: string, verifierHash: string): boolean;
}
