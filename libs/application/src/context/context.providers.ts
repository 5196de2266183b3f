import { type Provider } from '@nestjs/common';
import { createSummarizer, type RenderPages, type Summarize } from '@arbor/context';
import { type Message } from '@arbor/domain';
import { renderPages } from '@arbor/snapshots';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';

export const RENDER_PAGES = Symbol('RENDER_PAGES');
export const SUMMARIZE = Symbol('SUMMARIZE');
export const SUMMARIZE_BRANCH = Symbol('SUMMARIZE_BRANCH');

export type SummarizeBranch = (request: {
  messages: readonly Message[];
  instructions: string;
}) => Promise<{ summary: string; model: string; windows: number }>;

export const renderPagesProvider: Provider = {
  provide: RENDER_PAGES,
  useFactory: (): RenderPages => (text, shape) => renderPages(text, shape),
};

/** The summary client from ARBOR_SUMMARY_*; null (no key) leaves the summary rung unavailable. */
export const summarizeProvider: Provider = {
  provide: SUMMARIZE,
  inject: [ARBOR_CONFIG],
  useFactory: (config: ArborConfig): Summarize | null => {
    const summarizer = createSummarizer(config.summary);
    return summarizer.available ? (request) => summarizer.summarize(request) : null;
  },
};

export const summarizeBranchProvider: Provider = {
  provide: SUMMARIZE_BRANCH,
  inject: [ARBOR_CONFIG],
  useFactory: (config: ArborConfig): SummarizeBranch | null => {
    const summarizer = createSummarizer(config.summary);
    return summarizer.available ? (request) => summarizer.summarize(request) : null;
  },
};
