import { randomBytes } from "node:crypto";

/** A fresh marker key: 256 random bits, base64url (43 characters). */
export function randomHashKey(): string {
  return randomBytes(32).toString("base64url");
}
