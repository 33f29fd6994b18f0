// Every member a policy schema defines, read from site-kit's own zod schema (not a list kept here),
// so the create form can show each member with the schema's message for it.

export interface PolicyMember {
  /** Dotted path; `[]` stands for any array index. */
  path: string;
  /** What the schema takes: boolean, number, string, or the allowed values. */
  kind: string;
}

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  values?: unknown[];
  options?: Schema[];
}
interface Schema {
  _zod: { def: Def };
}

const WRAPPERS = new Set([
  'optional',
  'default',
  'nullable',
  'readonly',
  'nonoptional',
  'prefault',
  'catch',
]);

function walk(schema: Schema, path: string, out: PolicyMember[]): void {
  const def = schema._zod.def;
  if (WRAPPERS.has(def.type) && def.innerType) return walk(def.innerType, path, out);
  if (def.type === 'pipe' && def.in && def.out) {
    // A preprocess (alias folding) feeds the real schema on its out side.
    const inner = ['transform', 'unknown'].includes(def.in._zod.def.type) ? def.out : def.in;
    return walk(inner, path, out);
  }
  if (def.type === 'object' && def.shape) {
    for (const [name, member] of Object.entries(def.shape)) {
      walk(member, path ? `${path}.${name}` : name, out);
    }
    return;
  }
  if (def.type === 'array' && def.element) return walk(def.element, `${path}[]`, out);
  out.push({ path, kind: kindOf(def) });
}

function kindOf(def: Def): string {
  if (def.type === 'literal' && def.values)
    return def.values.map((v) => JSON.stringify(v)).join(' | ');
  if (def.type === 'union' && def.options) {
    return def.options.map((o) => kindOf(o._zod.def)).join(' | ');
  }
  if (def.type === 'pipe' && def.in) return kindOf(def.in._zod.def);
  return def.type;
}

/** `schema`: one of site-kit's policy schemas (zod 4). */
export function policyMembers(schema: object): PolicyMember[] {
  const out: PolicyMember[] = [];
  walk(schema as unknown as Schema, '', out);
  return out;
}

/** A zod issue path as a member path: indexes become `[]`. */
export function memberPath(path: readonly PropertyKey[]): string {
  return path
    .map((part) => (typeof part === 'number' ? '[]' : String(part)))
    .join('.')
    .replaceAll('.[]', '[]');
}
