/**
 * The embedded client: the application layer (@arbor/application) booted alone as a Nest
 * application context on the configured data directory, with writes sent as its use-case commands
 * (StartConversation, CommitTurn, …) and reads as its queries, validated with the contract's
 * schemas — the same command path and validation as the HTTP controllers, never events written
 * directly.
 */
import 'reflect-metadata';
import { type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { type Message } from '@arbor/domain';
import {
  AppError,
  ApplicationModule,
  type ArborConfig,
  type Caller,
  CommitTurn,
  conversationView,
  CreateTenant,
  GetBranchOrTree,
  GetConversation,
  GetTree,
  ListTenants,
  MoveTip,
  parseOrThrow,
  parseTurnBody,
  type ReplayAnswer,
  ReplayConversation,
  ReproduceContext,
  SetCheckpoint,
  StartConversation,
  toJsonl,
  toMarkdown,
} from '@arbor/application';
import * as S from '@arbor/contract';
import { CliError, problemError } from '../errors';
import {
  type ArborClient,
  asJson,
  type ConversationInfo,
  type ReplayView,
  type ReproductionView,
  type TreeView,
} from './types';

/** The tenant the embedded CLI uses when none is named. */
export const LOCAL_TENANT_NAME = 'local';

const toCliError = (e: unknown): unknown => {
  if (e instanceof CliError) return e;
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string')
    return problemError(e.code, (e as { detail?: unknown }).detail, String(e));
  return e;
};

export interface EmbeddedOptions {
  config: ArborConfig;
  /** The tenant to act as; default the `local` tenant (created on first use). */
  tenantId?: string;
  /** Told once when the local tenant is created. */
  onTenantCreated?: (tenantId: string) => void;
}

export const createEmbeddedClient = async (options: EmbeddedOptions): Promise<ArborClient> => {
  const app: INestApplicationContext = await NestFactory.createApplicationContext(
    ApplicationModule.forRoot(options.config),
    { logger: ['error', 'warn'], abortOnError: false },
  );
  await app.init();
  const commands = app.get(CommandBus);
  const queries = app.get(QueryBus);
  let tenantId = options.tenantId;
  try {
    const tenants = await queries.execute(new ListTenants());
    if (tenantId !== undefined && !tenants.some((t) => t.id === tenantId))
      throw new CliError('tenant_not_found', `no tenant ${tenantId} in ${options.config.dataDir}`);
    if (tenantId === undefined) {
      tenantId = tenants.find((t) => t.name === LOCAL_TENANT_NAME)?.id;
      if (tenantId === undefined) {
        tenantId = (await commands.execute(new CreateTenant(LOCAL_TENANT_NAME, { actor: 'cli' })))
          .id;
        options.onTenantCreated?.(tenantId);
      }
    }
  } catch (e) {
    await app.close();
    throw e;
  }
  const caller: Caller = { tenantId, keyId: 'cli-embedded', actor: 'cli' };
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return asJson(await work());
    } catch (e) {
      throw toCliError(e);
    }
  };
  const id = (conversationId: string): string => parseOrThrow(S.Id, conversationId, 'params');
  const branchOrTree = (conversationId: string, scope: 'tree' | 'branch') =>
    queries.execute(new GetBranchOrTree(caller, conversationId, scope));

  return {
    mode: 'embedded',
    target: options.config.dataDir,
    startConversation: (body) =>
      guard(async () => {
        const b = parseOrThrow(S.StartConversationBody, body);
        const conversationId = id(b.id ?? crypto.randomUUID());
        try {
          await commands.execute(
            new StartConversation(caller, conversationId, {
              title: b.title ?? null,
              metadata: b.metadata,
            }),
          );
          return { id: conversationId, created: true };
        } catch (e) {
          if (e instanceof AppError && e.code === 'conversation_exists' && b.id !== undefined)
            return { id: conversationId, created: false };
          throw e;
        }
      }),
    commitTurn: (conversationId, body) =>
      guard(async () => {
        const b = parseTurnBody(S.CommitTurnBody, body, options.config.maxImageBytes);
        const { result } = await commands.execute(
          new CommitTurn(caller, id(conversationId), {
            turnId: b.turnId,
            parentId: b.parentId,
            ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
            messages: b.messages,
          }),
        );
        const { turnId, messageIds, tip, revision, replayed } = result;
        return { turnId, messageIds: [...messageIds], tip, revision, replayed };
      }),
    moveTip: (conversationId, messageId) =>
      guard(async () => {
        const b = parseOrThrow(S.MoveTipBody, { messageId });
        const { result } = await commands.execute(
          new MoveTip(caller, id(conversationId), { messageId: b.messageId }),
        );
        return { tip: result.tip, revision: result.revision };
      }),
    setCheckpoint: (conversationId, label, messageId) =>
      guard(async () => {
        const b = parseOrThrow(S.SetCheckpointBody, { label, messageId, replace: true });
        await commands.execute(
          new SetCheckpoint(caller, id(conversationId), {
            label: b.label,
            messageId: b.messageId,
            replace: b.replace,
          }),
        );
      }),
    conversation: (id) =>
      guard(
        async () =>
          conversationView(
            await queries.execute(new GetConversation(caller, id)),
          ) as ConversationInfo,
      ),
    tree: (id) => guard(async () => (await queries.execute(new GetTree(caller, id))) as TreeView),
    messages: (id, scope) =>
      guard(async (): Promise<Message[]> => (await branchOrTree(id, scope)).messages),
    exportText: (id, format, scope) =>
      guard(async () => {
        const { conversation, messages } = await branchOrTree(id, scope);
        return format === 'jsonl' ? toJsonl(messages) : toMarkdown(conversation.title, messages);
      }),
    replay: (id, revision) =>
      guard(async () => {
        const items: Message[] = [];
        let first: ReplayAnswer | undefined;
        for (let from: number | null = 0; from !== null;) {
          const page: ReplayAnswer = await queries.execute(
            new ReplayConversation(caller, id, revision, from, 1000),
          );
          first ??= page;
          items.push(...page.branch.items);
          from = page.branch.nextDepth;
        }
        const answer = first as ReplayAnswer;
        const { nextDepth: _n, ...branch } = answer.branch;
        return { ...answer, branch: { ...branch, items } } as unknown as ReplayView;
      }),
    reproduce: (id, contextId) =>
      guard(
        async () =>
          (await queries.execute(
            new ReproduceContext(caller, id, contextId),
          )) as unknown as ReproductionView,
      ),
    close: () => app.close(),
  };
};
