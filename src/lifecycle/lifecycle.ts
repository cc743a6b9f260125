/** Process state the routes consult: readiness turns false while draining (§10). */
export class Lifecycle {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  beginDrain(): void {
    this.#draining = true;
  }
}
