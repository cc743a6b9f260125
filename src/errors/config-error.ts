/** A configuration problem that must stop start-up; `key` names the offending setting. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly key: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`config ${key}: ${message}`, options);
  }
}
