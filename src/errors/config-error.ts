/** A configuration problem that must stop start-up; `key` names the offending setting. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly key: string,
    /** What is wrong with it, without the key. */
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`config ${key}: ${detail}`, options);
  }
}
