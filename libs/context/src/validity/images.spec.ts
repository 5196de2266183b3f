import { isJsonObjectText } from './images';

describe('isJsonObjectText', () => {
  const cases: [string, boolean][] = [
    ['{}', true],
    ['{"a":[1,2]}', true],
    ['[]', false],
    ['null', false],
    ['"{}"', false],
    ['{', false],
    ['', false],
    [`{"big":"${'x'.repeat(2000)}"}`, true],
    [`{"big":"${'x'.repeat(2000)}"`, false],
  ];

  it('says whether a text is a JSON object, the same the second time (memoized) as the first', () => {
    for (let round = 0; round < 2; round++) {
      for (const [text, expected] of cases)
        expect([text, isJsonObjectText(text)]).toEqual([text, expected]);
    }
  });

  it('keeps answering right after its memo filled and was cleared', () => {
    for (let i = 0; i < 25_000; i++) {
      expect(isJsonObjectText(i % 2 === 0 ? `{"i":${i}}` : `[${i}]`)).toBe(i % 2 === 0);
    }
    for (const [text, expected] of cases) expect(isJsonObjectText(text)).toBe(expected);
  });
});
