// Names and layouts some public v2 builders write that mean a standard member (or none). They are
// read as that member and never written; the reader says so, so a site can tell which builder made a
// token. The issuer folds them the same way, silently: it writes the canonical form.

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of a v2 policy with the aliases folded in, and a note for each one found. */
export function foldV2Aliases(policy: unknown): { policy: unknown; notes: string[] } {
  if (!isObject(policy)) return { policy, notes: [] };
  const notes: string[] = [];
  const out: Json = { ...policy };
  if ('external_policy' in out) {
    if (!('external_key' in out)) out['external_key'] = out['external_policy'];
    delete out['external_policy'];
    notes.push("external_policy: read as external_key (an older builder's name)");
  }
  if (Array.isArray(out['security_policy'])) {
    out['security_policy'] = out['security_policy'].map((entry: unknown, i) => {
      const playready = isObject(entry) ? entry['playready'] : undefined;
      if (!isObject(entry) || !isObject(playready) || !('require_hdcp_type1' in playready)) {
        return entry;
      }
      const { require_hdcp_type1: value, ...rest } = playready;
      notes.push(
        `security_policy.${i}.playready.require_hdcp_type1: read as require_hdcp_type_1 (a builder's misspelling)`,
      );
      return { ...entry, playready: { require_hdcp_type_1: value, ...rest } };
    });
  }
  const external = out['external_key'];
  if (isObject(external)) {
    const folded: Json = { ...external };
    for (const list of ['mpeg_cenc', 'hls_aes'] as const) {
      const entries = folded[list];
      if (!Array.isArray(entries)) continue;
      // One builder always writes both lists, the empty one beside the one that holds keys.
      if (entries.length === 0) {
        delete folded[list];
        notes.push(`external_key.${list}: an empty list, read as absent (one builder writes it)`);
        continue;
      }
      folded[list] = entries.map((entry: unknown) => {
        if (!isObject(entry) || entry['iv'] !== null) return entry;
        const { iv: _absent, ...rest } = entry;
        return rest;
      });
    }
    out['external_key'] = folded;
  }
  return { policy: out, notes };
}
