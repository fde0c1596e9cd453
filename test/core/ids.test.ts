import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestText, SeededIds, sha1Hex, uuidFromString } from '../../src/core/ids.js';
import { idempotencyKey } from '../../src/execution/idempotency.js';

describe('seeded ids', () => {
  it('hash a text as a SHA-1 Hash object does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        expect(sha1Hex(text)).toBe(createHash('sha1').update(text).digest('hex'));
      }),
      { numRuns: 500 },
    );
  });

  it('digest a text as a Hash object does', () => {
    const algorithm = fc.constantFrom('sha1', 'sha256') as fc.Arbitrary<'sha1' | 'sha256'>;
    const encoding = fc.constantFrom('hex', 'base64url') as fc.Arbitrary<'hex' | 'base64url'>;
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), algorithm, encoding, (text, a, e) => {
        expect(digestText(a, text, e)).toBe(createHash(a).update(text).digest(e));
      }),
      { numRuns: 300 },
    );
  });

  it('hand out the same UUID-shaped ids for the same seed, whatever runs between', () => {
    const a = new SeededIds('run:guard');
    const b = new SeededIds('run:guard');
    const first = [a.next(), a.next(), a.next()];
    expect([b.next(), b.next(), b.next()]).toEqual(first);
    // The id of `run:guard:1`, as every earlier build derived it (reports and journals keep these).
    expect(first[0]).toBe(uuidFromString('run:guard:1'));
    expect(uuidFromString('run:guard:1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const h = createHash('sha1').update('run:guard:1').digest('hex');
    expect(uuidFromString('run:guard:1').replace(/-/g, '')).toBe(h.slice(0, 12) + '5' + h.slice(13, 16) + ((parseInt(h[16]!, 16) & 3) | 8).toString(16) + h.slice(17, 32));
  });
});

describe('idempotency keys', () => {
  it('are the keys earlier builds sent: a restart after an upgrade resends an in-doubt order with its first key', () => {
    expect(idempotencyKey('intent-1', 'create')).toBe('pb1-' + createHash('sha256').update('intent-1:create').digest('base64url').slice(0, 32));
    expect(idempotencyKey('intent-1', 'create')).toBe('pb1-a19LQwnReywZOeR_frVQMVUUXHL9mUYQ');
  });
});
