/**
 * The longest tool output, in UTF-16 units, that the pipeline reads as a JSON document (§10 big
 * bodies): format, toon and smartcrush parse it, its class may be `json`, and the fidelity guard
 * compares its values. A longer one (a multi-megabyte API dump) is text to every component: parsing
 * it would build a value per string and number in it, several times over, for a reformat that
 * cannot bring it within any model's window, while the collapse of text reduces it at the cost
 * of a scan. The per-job heap estimate (src/compaction/job-cost.ts) relies on this bound.
 */
export const JSON_DOCUMENT_MAX_CHARS = 1024 * 1024;

/** Whether an output of `text` may be read as a JSON document. */
export const mayBeJsonDocument = (text: string): boolean => text.length <= JSON_DOCUMENT_MAX_CHARS;
