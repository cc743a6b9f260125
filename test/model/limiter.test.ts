import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/model/limiter.js";

const never = new AbortController().signal;

describe("limiter", () => {
  it("grants up to max slots and serves waiters in arrival order", async () => {
    const limiter = new Limiter(2);
    const first = await limiter.acquire(never);
    const second = await limiter.acquire(never);
    const order: string[] = [];
    const third = limiter.acquire(never).then((release) => {
      order.push("third");
      return release;
    });
    const fourth = limiter.acquire(never).then((release) => {
      order.push("fourth");
      return release;
    });
    expect(limiter.active).toBe(2);
    first();
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(["third", "fourth"]);
    expect(limiter.active).toBe(0);
  });

  it("drops a waiter whose signal aborts, and rejects with the signal's reason", async () => {
    const limiter = new Limiter(1);
    const held = await limiter.acquire(never);
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    held();
    expect(limiter.active).toBe(0);
    const again = await limiter.acquire(never);
    expect(limiter.active).toBe(1);
    again();
  });

  it("rejects at once when the signal has already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("late"));
    await expect(new Limiter(1).acquire(controller.signal)).rejects.toThrow("late");
  });
});
