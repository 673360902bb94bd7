/** A start-up problem whose message is one clear line naming the key at fault. */
export class StartupError extends Error {}
