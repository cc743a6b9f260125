import { contentHasher } from "../../src/expand/markers.js";

/** A fixed marker key for tests that need to know the ids an app will write. */
export const TEST_HASH_KEY = "test-marker-key-0123456789abcdef";

/** The content ids of an app built with TEST_HASH_KEY. */
export const testIdOf = contentHasher(TEST_HASH_KEY);
