/** The TypeScript shapes of the wire, inferred from the schemas (for clients such as apps/cli). */
import { type z } from 'zod';
import type * as M from './messages';
import type * as Q from './requests';
import type * as R from './responses';

export type WireMessageInput = z.input<typeof M.MessageInputSchema>;
export type WireMessage = z.infer<typeof M.MessageSchema>;
export type BranchMessage = z.infer<typeof M.BranchMessageSchema>;
export type WireBlock = z.infer<typeof M.BlockSchema>;
export type StartConversationRequest = z.input<typeof Q.StartConversationBody>;
export type CommitTurnRequest = z.input<typeof Q.CommitTurnBody>;
export type StartedAnswer = z.infer<typeof R.StartedAnswerSchema>;
export type Conversation = z.infer<typeof R.ConversationSchema>;
export type TurnAnswer = z.infer<typeof R.TurnAnswerSchema>;
export type TipAnswer = z.infer<typeof R.TipAnswerSchema>;
export type MoveTipAnswer = z.infer<typeof R.MoveTipAnswerSchema>;
export type ForkAnswer = z.infer<typeof R.ForkAnswerSchema>;
export type Checkpoint = z.infer<typeof R.CheckpointSchema>;
export type TreeNode = z.infer<typeof R.TreeNodeSchema>;
export type Tree = z.infer<typeof R.TreeSchema>;
export type BranchPage = z.infer<typeof R.BranchPageSchema>;
export type AuditEvent = z.infer<typeof R.AuditEventSchema>;
export type ReplayView = z.infer<typeof R.ReplayViewSchema>;
export type Reproduction = z.infer<typeof R.ReproductionSchema>;
export type ContextSummary = z.infer<typeof R.ContextSummarySchema>;
export type ContextAnswer = z.infer<typeof R.ContextAnswerSchema>;
export type ContextReport = z.infer<typeof R.ContextReportSchema>;
