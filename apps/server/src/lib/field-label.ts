/**
 * Russian names of form fields, kept in the zod schemas themselves (packages/contract): a field
 * says `.meta({ label: 'Адрес' })`, or its object says `.meta({ labels: { ip_address: 'Адрес' } })`.
 * Validation errors name the field by this label; code names never reach the user.
 */

interface ZodLike {
  _zod?: { def?: Record<string, unknown> & { type?: string } };
  meta?: () => Record<string, unknown> | undefined;
}

function metaOf(schema: ZodLike): Record<string, unknown> | undefined {
  try {
    return typeof schema.meta === 'function' ? schema.meta() : undefined;
  } catch {
    return undefined;
  }
}

/** The schema itself and every wrapper inside it (optional, default, pipe …), outermost first. */
function layers(schema: ZodLike | undefined): ZodLike[] {
  const out: ZodLike[] = [];
  for (let s = schema, depth = 0; s && depth < 20; depth++) {
    out.push(s);
    const def = s._zod?.def;
    if (!def) break;
    s = (def.innerType ??
      (def.type === 'pipe' ? def.in : undefined) ??
      (def.type === 'lazy' && typeof def.getter === 'function' ? (def.getter as () => ZodLike)() : undefined)) as ZodLike | undefined;
  }
  return out;
}

function child(schema: ZodLike, key: string): { schema: ZodLike; label?: string } | undefined {
  for (const layer of layers(schema)) {
    const def = layer._zod?.def;
    if (!def) continue;
    if (def.type === 'object') {
      const shape = (typeof def.shape === 'function' ? (def.shape as () => Record<string, ZodLike>)() : def.shape) as
        Record<string, ZodLike> | undefined;
      const next = shape?.[key];
      if (!next) return undefined;
      const labels = metaOf(layer)?.labels as Record<string, string> | undefined;
      return { schema: next, label: labels?.[key] };
    }
    if (def.type === 'array' && /^\d+$/.test(key)) return { schema: def.element as ZodLike };
    if (def.type === 'record') return { schema: def.valueType as ZodLike };
    if (def.type === 'union') {
      for (const option of (def.options as ZodLike[]) ?? []) {
        const found = child(option, key);
        if (found) return found;
      }
      return undefined;
    }
  }
  return undefined;
}

/** The Russian label of the field at `path` (e.g. ['kits', '0', 'name']) in schema, if it has one. */
export function fieldLabel(schema: unknown, path: readonly string[]): string | undefined {
  let current = schema as ZodLike | undefined;
  let label: string | undefined;
  for (const key of path) {
    if (!current) return undefined;
    const next = child(current, key);
    if (!next) return undefined;
    current = next.schema;
    label = undefined;
    for (const layer of layers(current)) {
      const own = metaOf(layer)?.label;
      if (typeof own === 'string') {
        label = own;
        break;
      }
    }
    label ??= next.label;
  }
  return label;
}
