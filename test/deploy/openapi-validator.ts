import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";

export const openapiFile = resolve(import.meta.dirname, "../../openapi.yaml");

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const escapePointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Checks real responses against openapi.yaml: the documented status (or `default`), the
 * documented media type, the body against its schema, every documented header that is present
 * against its schema, and that no undocumented `x-context-guru-*` header was sent.
 */
export class OpenapiValidator {
  readonly document: Node;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ReturnType<Ajv2020["compile"]>>();

  constructor(file = openapiFile) {
    const document: unknown = parseYaml(readFileSync(file, "utf8"));
    if (!isNode(document)) throw new Error(`${file} is not a mapping`);
    this.document = document;
    this.#ajv.addSchema(document, "openapi");
  }

  /** Every documented `METHOD path` pair. */
  operations(): string[] {
    const paths = this.document.paths;
    if (!isNode(paths)) return [];
    return Object.entries(paths).flatMap(([path, item]) =>
      isNode(item) ? Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`) : [],
    );
  }

  /** Problems found; empty when the response matches the description. */
  async check(method: string, path: string, response: Response): Promise<string[]> {
    const operationPointer = `/paths/${escapePointer(path)}/${method.toLowerCase()}`;
    const operation = this.#at(operationPointer);
    if (!isNode(operation)) return [`${method} ${path} is not documented`];
    const responses = operation.responses;
    if (!isNode(responses)) return [`${method} ${path} documents no responses`];
    const status = String(response.status);
    const key = status in responses ? status : "default" in responses ? "default" : undefined;
    if (key === undefined) return [`${method} ${path} does not document status ${status}`];
    let pointer = `${operationPointer}/responses/${escapePointer(key)}`;
    let described = this.#at(pointer);
    if (isNode(described) && typeof described.$ref === "string") {
      pointer = described.$ref.slice(1);
      described = this.#at(pointer);
    }
    if (!isNode(described)) return [`${pointer} is not a response object`];
    const problems = this.#checkHeaders(pointer, described, response.headers);
    const content = described.content;
    const body = await response.text();
    if (!isNode(content)) {
      return body === "" ? problems : [...problems, `${status} has a body but documents none`];
    }
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    if (!(mediaType in content)) {
      return [...problems, `${status} does not document media type ${JSON.stringify(mediaType)}`];
    }
    const value = mediaType === "application/json" ? parseJson(body) : body;
    const schemaPointer = `${pointer}/content/${escapePointer(mediaType)}/schema`;
    return [...problems, ...this.#validate(schemaPointer, value, `${status} body`)];
  }

  #checkHeaders(pointer: string, described: Node, headers: Headers): string[] {
    const documented = isNode(described.headers) ? described.headers : {};
    const problems: string[] = [];
    for (const [name] of headers) {
      if (name.startsWith("x-context-guru-") && !(name in documented)) {
        problems.push(`header ${name} is not documented`);
      }
    }
    for (const [name, header] of Object.entries(documented)) {
      const text = headers.get(name);
      if (text === null) continue;
      let headerPointer = `${pointer}/headers/${escapePointer(name)}`;
      if (isNode(header) && typeof header.$ref === "string") headerPointer = header.$ref.slice(1);
      const schema = this.#at(`${headerPointer}/schema`);
      const value =
        isNode(schema) && schema.type === "integer" && /^\d+$/.test(text) ? Number(text) : text;
      problems.push(...this.#validate(`${headerPointer}/schema`, value, `header ${name}`));
    }
    return problems;
  }

  #validate(schemaPointer: string, value: unknown, what: string): string[] {
    let validate = this.#compiled.get(schemaPointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `openapi#${schemaPointer}` });
      this.#compiled.set(schemaPointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${what}${error.instancePath} ${error.message ?? "is invalid"}`,
    );
  }

  #at(pointer: string): unknown {
    let node: unknown = this.document;
    for (const part of pointer.split("/").slice(1)) {
      const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
      node = isNode(node) ? node[key] : undefined;
    }
    return node;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { "(not JSON)": text.slice(0, 40) };
  }
}
