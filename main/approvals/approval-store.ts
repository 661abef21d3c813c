// Where the inbox and its grants persist: the audit database's approval tables
// (audit/approval-tables.ts, where all of Gatehouse's SQL lives), typed with the inbox's items
// and grants. A restart loses neither the history nor a grant an operator gave.
import { ApprovalTables } from '../audit/approval-tables.js';
import type { ApprovalItem, ApprovalPersistence, Grant } from './types.js';

export class ApprovalStore extends ApprovalTables<ApprovalItem, Grant> implements ApprovalPersistence {}
