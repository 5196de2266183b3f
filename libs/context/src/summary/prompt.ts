/** Asks to keep the goal and standing instructions; each window's summary replaces the previous. */

export interface PromptInput {
  previousSummary?: string;
  transcript: string;
  part: number;
  more: boolean;
  targetTokens: number;
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
