/**
 * What the summarizer is asked. The list of what to keep answers the complaint users of other
 * harnesses have about compaction: a summary that loses the goal or the standing instructions. A fold over several windows asks each time for one summary that replaces the
 * previous one and the new part, so the last answer covers the whole transcript.
 */

export interface PromptInput {
  /** The summary of everything before this part, absent for the first window. */
  previousSummary?: string;
  /** This window's part of the transcript. */
  transcript: string;
  /** 1-based position of this window. */
  part: number;
  /** Whether more of the transcript follows this part. */
  more: boolean;
  targetTokens: number;
  /** Extra instructions from whoever asked for the summary (e.g. `/compact` arguments). */
  instructions?: string;
}

export function systemPrompt(targetTokens: number): string {
  return [
    'You compact the history of a long conversation between a user and an AI agent that uses',
    'tools, so that the agent can continue the work from your summary alone. You receive part of',
    'the transcript, and from the second part on the summary of everything before it; write one',
    'summary that replaces both.',
    '',
    'Keep, under these headings:',
    '1. Goal: what the user is ultimately trying to achieve, in their words where possible.',
    '2. Standing instructions and constraints: every rule, preference, prohibition or requirement',
    '   set by the user or the system that still applies, quoted exactly. Never drop one because it',
    '   is old; drop it only if the user revoked it.',
    '3. Decisions made, and why.',
    '4. Files, paths, commands, identifiers, URLs and names touched, and what was done to each.',
    '5. Open problems: errors not yet resolved, questions still waiting for an answer.',
    '6. Current state of the work and the next step.',
    '',
    'Rules: state only what the transcript says; keep identifiers exact; leave out greetings and',
    'tool output that no longer matters. Text marked "characters omitted" was cut before you saw',
    'it. When the earlier summary and the new part disagree, the later information wins, except',
    `that standing instructions stay until revoked. Stay under about ${targetTokens} tokens.`,
    'Answer with the summary only.',
  ].join('\n');
}

export function userPrompt(input: PromptInput): string {
  const sections: string[] = [];
  if (input.previousSummary !== undefined) {
    sections.push(
      `<summary_so_far>\n${input.previousSummary}\n</summary_so_far>`,
      `Transcript part ${input.part}, continuing from the summary above:`,
    );
  } else {
    sections.push(`Transcript part ${input.part}:`);
  }
  sections.push(`<transcript>\n${input.transcript}\n</transcript>`);
  if (input.instructions !== undefined && input.instructions.trim() !== '') {
    sections.push(`Additional instructions for this summary:\n${input.instructions.trim()}`);
  }
  sections.push(
    input.more
      ? 'More of the transcript follows. Write the summary of everything so far.'
      : 'This is the end of the transcript. Write the final summary.',
  );
  return sections.join('\n\n');
}
