/** A failure at start-up that is the operator's to fix (configuration, unreachable servers): printed without a stack. */
export class StartupError extends Error {}
