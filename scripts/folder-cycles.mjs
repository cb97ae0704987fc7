// Folder cycles: dependency-cruiser's no-circular sees cycles between files,
// not between folders (payments/a.ts → isolation/b.ts → payments/c.ts is no
// file cycle, yet it makes the two folders one unit a reader must take in
// together). A folder is a direct child of src/ (src/x.ts counts as its own);
// tests are left out, as for the layer rules.

/** The folder a path under src/ belongs to, or undefined outside src/ or for a test. */
export function folderOf(path) {
  if (!path.startsWith('src/') || path.endsWith('.test.ts')) return undefined;
  const rest = path.slice(4);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/**
 * Every cycle between folders, one per strongly connected group of two or
 * more folders, as "a → b → … → a". `modules`: dependency-cruiser's
 * output.modules ({ source, dependencies: [{ resolved }] }); `excused`: the
 * imports (`from`, `to`: path patterns) left out, .dependency-cruiser.cjs's EXCEPTIONS.
 */
export function folderCycles(modules, excused = []) {
  const skip = excused.map((e) => ({ from: new RegExp(e.from), to: new RegExp(e.to) }));
  const edges = new Map();
  for (const m of modules) {
    const from = folderOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies ?? []) {
      const to = folderOf(d.resolved);
      if (!to || to === from || skip.some((e) => e.from.test(m.source) && e.to.test(d.resolved))) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
    }
  }
  // Tarjan's strongly connected components.
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const groups = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.map((group) => {
    // One concrete cycle through the group, from its first folder by name.
    const inGroup = new Set(group);
    const start = [...group].sort()[0];
    const path = [start];
    const seen = new Set([start]);
    const walk = (v) => {
      for (const w of [...(edges.get(v) ?? [])].sort()) {
        if (!inGroup.has(w)) continue;
        if (w === start) return true;
        if (seen.has(w)) continue;
        seen.add(w);
        path.push(w);
        if (walk(w)) return true;
        path.pop();
      }
      return false;
    };
    walk(start);
    return [...path, start].join(' → ');
  });
}
