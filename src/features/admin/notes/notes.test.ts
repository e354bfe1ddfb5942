import { describe, expect, it } from 'vitest';
import { MAX_NOTE_LENGTH, noteLength, noteProblem } from './notes';

describe('what a private note may be', () => {
  it('is refused when empty or only spaces and line breaks, in words', () => {
    for (const text of ['', '   ', '\n\t \n']) expect(noteProblem(text)).toBe('Write something in the note first.');
  });

  it('is refused past 2,000 characters, saying how long it is', () => {
    expect(noteProblem('a'.repeat(MAX_NOTE_LENGTH))).toBeNull();
    expect(noteProblem('a'.repeat(MAX_NOTE_LENGTH + 1))).toBe('A note can be at most 2,000 characters; this one has 2,001.');
  });

  it('counts characters as the database does: an emoji is one, and spaces around the note are not counted', () => {
    expect(noteLength('🙂')).toBe(1);
    expect(noteProblem('🙂'.repeat(MAX_NOTE_LENGTH))).toBeNull();
    expect(noteProblem(`  ${'a'.repeat(MAX_NOTE_LENGTH)}  \n`)).toBeNull();
  });

  it('keeps line breaks inside a note', () => {
    expect(noteProblem('Called her.\nShe will send the scrubs back.')).toBeNull();
  });
});
