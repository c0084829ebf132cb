/**
 * Just enough JSON Schema (as @fastify/swagger writes it into the OpenAPI document) to build a
 * valid request body for a route and to tell whether a mutated one is still valid. A mutation
 * the declared schema refuses is "invalid by construction": the API must answer it with a 4xx
 * and change nothing. One the schema accepts may legitimately succeed.
 */
export interface JsonSchema {
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `value` satisfies the schema (the subset above; formats are not checked). */
export function conforms(schema: JsonSchema | undefined, value: unknown): boolean {
  if (!schema) return true;
  if (value === null && schema.nullable) return true;
  if (schema.anyOf && !schema.anyOf.some((s) => conforms(s, value))) return false;
  if (schema.oneOf && schema.oneOf.filter((s) => conforms(s, value)).length !== 1) return false;
  if (schema.allOf && !schema.allOf.every((s) => conforms(s, value))) return false;
  if (schema.enum && !schema.enum.some((e) => e === value)) return false;
  if (schema.const !== undefined && schema.const !== value) return false;
  switch (schema.type) {
    case undefined:
      return true;
    case 'null':
      return value === null;
    case 'string': {
      if (typeof value !== 'string') return false;
      // Lengths in code points, as JSON Schema (and zod) count them.
      const length = [...value].length;
      if (schema.minLength !== undefined && length < schema.minLength) return false;
      if (schema.maxLength !== undefined && length > schema.maxLength) return false;
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return false;
      return true;
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      if (schema.type === 'integer' && !Number.isInteger(value)) return false;
      const exMin = schema.exclusiveMinimum;
      const exMax = schema.exclusiveMaximum;
      if (schema.minimum !== undefined && (exMin === true ? value <= schema.minimum : value < schema.minimum)) return false;
      if (schema.maximum !== undefined && (exMax === true ? value >= schema.maximum : value > schema.maximum)) return false;
      if (typeof exMin === 'number' && value <= exMin) return false;
      if (typeof exMax === 'number' && value >= exMax) return false;
      return true;
    }
    case 'boolean':
      return typeof value === 'boolean';
    case 'array': {
      if (!Array.isArray(value)) return false;
      if (schema.minItems !== undefined && value.length < schema.minItems) return false;
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return false;
      return value.every((v) => conforms(schema.items, v));
    }
    case 'object': {
      if (!isPlainObject(value)) return false;
      const props = schema.properties ?? {};
      for (const key of schema.required ?? []) if (value[key] === undefined) return false;
      for (const [key, v] of Object.entries(value)) {
        if (v === undefined) continue;
        const prop = Object.hasOwn(props, key) ? props[key] : undefined;
        if (prop) {
          if (!conforms(prop, v)) return false;
        } else if (schema.additionalProperties === false) return false;
        else if (isPlainObject(schema.additionalProperties) && !conforms(schema.additionalProperties, v)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

/** Plausible strings for a field, by its name; the first one the schema accepts is used. */
function stringCandidates(name: string): string[] {
  const byName: [RegExp, string][] = [
    [/email/, 'fuzz.base@example.com'],
    [/url|icon|image|img|_link$/i, 'https://example.com/image.png'],
    [/host|ip_address/, '127.0.0.1'],
    [/password/, 'password-123'],
    [/token/, 'x'.repeat(43)],
    // A gift goes to an existing player other than the buyer (bad-input.test.ts seeds «Target»).
    [/gift_to/, 'Target'],
    [/username|player/, 'Fuzz_Base'],
    [/minecraft/, 'stone'],
    // Tier and kit commands know {player}, {uuid} and their own placeholders, not the shop's {item}.
    [/give_commands|grant_commands|revoke_commands|ban_command|unban_command|reward_commands/, 'say {player}'],
    [/command/, 'give {player} minecraft:{item} {quantity}'],
    [/game_address/, 'play.example.ru'],
    [/support_(vk|telegram|discord)/, 'https://example.com/support'],
    [/inn$/, '7707083893'],
    [/ogrn$/, '1027700132195'],
    [/phone/, '+7 900 000-00-00'],
    [/currency/, 'RUB'],
    // A game profile's UUID (AzLink's game_id).
    [/game_id|uuid/, '069a79f4-44e9-4726-a5be-fca90e38aaf5'],
  ];
  return [...byName.filter(([re]) => re.test(name)).map(([, s]) => s), 'Проверка ввода', 'Abc_123', 'abcdefghij', 'abc', 'a'];
}

/** A valid value for the schema (every optional property included), or undefined if none is found. */
export function sampleValue(schema: JsonSchema, name = ''): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    // Prefer the richest branch: a real value over the '' that some fields also accept.
    const values = branches.map((b) => sampleValue(b, name)).filter((v) => v !== undefined && conforms(schema, v));
    return values.find((v) => v !== '' && v !== null) ?? values[0];
  }
  let value: unknown;
  switch (schema.type) {
    case 'string': {
      const candidates = stringCandidates(name);
      if (schema.minLength) candidates.push('a'.repeat(schema.minLength));
      value = candidates.find((c) => conforms(schema, c));
      break;
    }
    case 'number':
    case 'integer': {
      let lo = schema.minimum ?? 1;
      if (schema.exclusiveMinimum === true) lo += 1;
      if (typeof schema.exclusiveMinimum === 'number') lo = schema.exclusiveMinimum + 1;
      value = Math.ceil(Math.min(Math.max(lo, 1), schema.maximum ?? Number.MAX_SAFE_INTEGER));
      break;
    }
    case 'boolean':
      value = false;
      break;
    case 'array': {
      const item = schema.items ? sampleValue(schema.items, name) : undefined;
      value = item !== undefined && (schema.maxItems ?? 1) >= 1 ? [item] : [];
      break;
    }
    case 'object': {
      const obj: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        const v = sampleValue(prop, key);
        if (v !== undefined) obj[key] = v;
      }
      value = obj;
      break;
    }
    default:
      value = schema.nullable ? null : undefined;
  }
  return value !== undefined && conforms(schema, value) ? value : schema.nullable ? null : undefined;
}

export type FieldPath = (string | number)[];

/** Every field of a sample body: top-level properties, and the fields of the first item of arrays of objects. */
export function fieldPaths(schema: JsonSchema, base: unknown, prefix: FieldPath = []): { path: FieldPath; schema: JsonSchema }[] {
  const out: { path: FieldPath; schema: JsonSchema }[] = [];
  if (schema.type !== 'object' || !isPlainObject(base)) return out;
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const path = [...prefix, key];
    out.push({ path, schema: prop });
    const value = base[key];
    if (prop.type === 'object') out.push(...fieldPaths(prop, value, path));
    if (prop.type === 'array' && prop.items && Array.isArray(value) && value.length > 0) {
      out.push({ path: [...path, 0], schema: prop.items });
      out.push(...fieldPaths(prop.items, value[0], [...path, 0]));
    }
  }
  return out;
}

/** A deep copy of `doc` with the value at `path` replaced. */
export function withValue(doc: unknown, path: FieldPath, value: unknown): unknown {
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

export const showPath = (path: FieldPath) => path.join('.');
