import { type Provider } from '@nestjs/common';
import { createSummarizer, type RenderPages, type Summarize } from '@arbor/context';
import { renderPages } from '@arbor/snapshots';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';

export const RENDER_PAGES = Symbol('RENDER_PAGES');
export const SUMMARIZE = Symbol('SUMMARIZE');

/**
 * The snapshot renderer: text → PNG pages in the provider's page shape (@arbor/snapshots,
 * @napi-rs/canvas, async PNG encoding off the event loop). Always re-renders from source text.
 */
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
