/**
 * The in-memory journal keeps the contract the sqlite store keeps (test/store): what a restart loads
 * is every intent not final, and every final intent with a request still in doubt.
 */
import { describe, expect, it } from 'vitest';
import { MemoryJournal, type RequestRecord } from '../../src/execution/journal.js';
import { openIntent } from './helpers.js';

const request = (intentId: string, outcome: RequestRecord['outcome']): RequestRecord => ({
  key: `k-${intentId}`, intentId, step: 'create', operation: 'createOrder', args: [], storedAt: 1, attempts: 1, outcome,
});

describe('MemoryJournal.loadUnfinished', () => {
  it('loads intents not final, and final ones only while a request of theirs is in doubt', async () => {
    const journal = new MemoryJournal();
    const working = openIntent();
    const doneClean = openIntent();
    const doneInDoubt = openIntent();
    const failedPending = openIntent();
    journal.saveIntent({ intent: working, status: 'working', code: null, reason: null, updatedAt: 1 });
    journal.saveIntent({ intent: doneClean, status: 'done', code: null, reason: null, updatedAt: 1 });
    journal.saveIntent({ intent: doneInDoubt, status: 'done', code: null, reason: null, updatedAt: 1 });
    journal.saveIntent({ intent: failedPending, status: 'failed', code: 'forbidden', reason: null, updatedAt: 1 });
    await journal.beginRequest(request(doneClean.id, 'pending'));
    journal.updateRequest(request(doneClean.id, 'ok'));
    await journal.beginRequest(request(doneInDoubt.id, 'pending'));
    journal.updateRequest(request(doneInDoubt.id, 'unknown'));
    await journal.beginRequest(request(failedPending.id, 'pending'));

    const loaded = await journal.loadUnfinished();
    expect(loaded.map((u) => [u.record.intent.id, u.record.status, u.requests.map((r) => r.outcome)])).toEqual([
      [working.id, 'working', []],
      [doneInDoubt.id, 'done', ['unknown']],
      [failedPending.id, 'failed', ['pending']],
    ]);
    journal.updateRequest(request(doneInDoubt.id, 'ok'));
    journal.updateRequest(request(failedPending.id, 'failed'));
    expect((await journal.loadUnfinished()).map((u) => u.record.intent.id)).toEqual([working.id]);
  });
});
