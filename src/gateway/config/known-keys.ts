/**
 * The keys an object of the configuration may have at a JSON path, read off the zod schema (so
 * "did you mean" suggestions can never name a setting that does not exist).
 */
import type * as z from 'zod';

/** What this file reads of a schema's definition (zod 4's `_zod.def`, its documented introspection). */
interface Definition {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
}

/** The keys of the object `schema` describes at `path`; empty when it is not an object there. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const object of objectsAt(schema, path)) for (const key of Object.keys(definition(object).shape ?? {})) keys.add(key);
  return [...keys];
}

/** The object schemas at `path` (several where a union offers several). */
function objectsAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType[] {
  const def = definition(schema);
  const inner = def.innerType ?? def.in;
  if (inner) return objectsAt(inner, path);
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => objectsAt(option, path));
  if (path.length === 0) return def.type === 'object' ? [schema] : [];
  const [segment, ...rest] = path;
  if (def.type === 'object') {
    const child = typeof segment === 'string' ? def.shape?.[segment] : undefined;
    return child ? objectsAt(child, rest) : [];
  }
  if (def.type === 'array' && def.element) return objectsAt(def.element, rest);
  if (def.type === 'record' && def.valueType) return objectsAt(def.valueType, rest);
  return [];
}

function definition(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}
