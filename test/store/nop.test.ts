import { describe, expect, it } from "vitest";
import { NopStore } from "../../src/store/nop.js";

describe("nop store", () => {
  it("keeps nothing and says so", async () => {
    const store = new NopStore();
    await store.put("s", [{ key: "k", value: "v" }]);
    await store.addSticky("s", ["a"]);
    expect({
      backend: store.backend,
      persists: store.persists,
      value: await store.get("s", "k"),
      sticky: [...(await store.sticky("s"))],
      ready: await store.ready(),
      stats: await store.stats(),
    }).toEqual({
      backend: "nop",
      persists: false,
      value: undefined,
      sticky: [],
      ready: true,
      stats: { entries: 0, bytes: 0 },
    });
  });
});
