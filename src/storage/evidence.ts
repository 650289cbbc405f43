import type { Db } from './db';

/**
 * The inputs a decision was made on, stored beside the decision (reviews.evidence,
 * checkouts.blocked_evidence, customers.restriction_evidence), so the dashboard shows why.
 */
export type Evidence = Record<string, unknown>;

export async function setReviewEvidence(db: Db, reviewId: string, evidence: Evidence): Promise<void> {
  await db('reviews').where({ id: reviewId }).update({ evidence: JSON.stringify(evidence) });
}

export async function setBlockEvidence(db: Db, checkoutId: string, evidence: Evidence): Promise<void> {
  await db('checkouts').where({ id: checkoutId }).update({ blocked_evidence: JSON.stringify(evidence) });
}

export async function setRestrictionEvidence(db: Db, merchantId: string, customerId: string, evidence: Evidence | null): Promise<void> {
  await db('customers').where({ merchant_id: merchantId, id: customerId }).update({ restriction_evidence: evidence === null ? null : JSON.stringify(evidence) });
}
