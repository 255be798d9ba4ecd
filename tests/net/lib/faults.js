'use strict';
// The fault rules a test installs over POST /__hangar/faults.  A rule applies
// to the next `times` requests whose method+URL match, then disappears, so a
// test can say "the first two GETs of this object fail, the third works".

const KINDS = ['500', '503', '429', 'reset', 'truncate', 'stall'];

class FaultRules {
  constructor() {
    this.rules = [];
    this.nextId = 1;
  }

  // spec: the parsed JSON body.  Returns the stored rule; throws a message
  // on a bad spec so the test sees why its rule was refused.
  add(spec) {
    if (!spec || typeof spec !== 'object') throw new Error('rule must be a JSON object');
    if (typeof spec.match !== 'string') throw new Error('"match" (a JS regex source) is required');
    let regex;
    try { regex = new RegExp(spec.match); } catch (e) { throw new Error(`bad "match": ${e.message}`); }
    const kind = String(spec.kind);
    if (!KINDS.includes(kind)) throw new Error(`"kind" must be one of ${KINDS.join(', ')}`);
    const times = spec.times === undefined ? 1 : spec.times;
    if (!Number.isInteger(times) || times < 1) throw new Error('"times" must be a positive integer');
    for (const field of ['retry_after', 'stall_ms']) {
      if (spec[field] !== undefined && !(Number.isInteger(spec[field]) && spec[field] >= 0)) {
        throw new Error(`"${field}" must be a non-negative integer`);
      }
    }
    const rule = {
      id: this.nextId++,
      match: spec.match,
      method: spec.method === undefined ? null : String(spec.method).toUpperCase(),
      kind,
      times,
      retry_after: spec.retry_after === undefined ? null : spec.retry_after,
      stall_ms: spec.stall_ms === undefined ? 60000 : spec.stall_ms,
      regex,
    };
    this.rules.push(rule);
    return rule;
  }

  // The first rule matching this request, with one use consumed; or null.
  take(method, url) {
    const rule = this.rules.find(r => (!r.method || r.method === method) && r.regex.test(url));
    if (!rule) return null;
    if (--rule.times === 0) this.rules = this.rules.filter(r => r !== rule);
    return rule;
  }

  clear() {
    this.rules = [];
  }

  toJSON() {
    return this.rules.map(({ regex, ...rest }) => rest);
  }
}

module.exports = { FaultRules, KINDS };
