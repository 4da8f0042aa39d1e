#!/usr/bin/env python3
"""Regenerates src/text/zh_lexicon.txt, the trimmed Chinese word list the built-in
dream segments with (src/text/segment.rs).

Source: jieba's dictionary (MIT licence), as shipped in the jieba-rs crate
(src/data/dict.txt: `word frequency tag`, 349,045 entries). The whole dictionary is 5 MB
(about 1.7 MB gzip) and jieba-rs itself adds ~190 KiB gzip of code and HMM tables to a
wasm build: neither fits the npm budget (docs/BENCHMARKS.md). Trimmed:
  - words of 2 to 4 Chinese characters only (single characters are the segmenter's
    default; longer entries are idioms and names of organisations);
  - no person names (tags nr, nrt, nrfg: names are what the extractor finds as unknown
    runs, and jieba's name tags are noisy: 过敏 is tagged nr), no idioms or fixed phrases
    (i, l), abbreviations (j), other proper nouns (nz), symbols (x);
  - per class, the most frequent: 120 time words (t), 400 verbs (v, vn, vd, vi), 100
    function words (adverbs, conjunctions, prepositions, pronouns, particles, numerals,
    measure words, adjectives), 100 nouns and places (n, ns, s, an, b, z): quotas set by
    the npm package's size budget (3,364 and 1,337 words took it over);
  - plus EVERYDAY words of conversation that jieba's news-text frequencies rank too low
    (下周, 住院, 怀孕, 吵架, …), listed below;
  - in jieba's frequency order (the segmenter derives each word's weight from its rank).
Each line is a word, with `/t` (time word), `/s` (place), `/v` (verb) or `/f` (function word
or adjective) when jieba tags it so. Usage: scripts/trim-zh-lexicon.py. The dictionary is looked up in
$JIEBA_DICT, else in cargo's registry (`cargo info jieba-rs@0.11.0` downloads it there).
"""
import glob
import os
import subprocess
import sys

QUOTAS = [
    ({"t", "tg"}, 120),
    ({"v", "vn", "vd", "vi"}, 400),
    ({"d", "ad", "c", "p", "r", "u", "f", "m", "q", "mq", "a"}, 100),
    ({"n", "ns", "s", "an", "b", "z"}, 100),
]
EVERYDAY = """
下周 上周 这周 本周 周末 下个月 上个月 这个月 下个星期 上个星期 下礼拜 上礼拜 明年 去年 今年
前天 后天 大后天 今晚 明晚 昨晚 早上 中午 傍晚 凌晨 小时候 以前 以后 最近 刚才 每天 每周
住院 出院 怀孕 吵架 分手 加班 升职 辞职 面试 出差 结婚 离婚 搬家 复查 体检 逛街 旅游 爬山
跑步 钓鱼 做饭 下厨 游泳 健身 瑜伽 攀岩 骑车 滑雪 追剧 拍照 画画 唱歌 跳舞 看书 聊天 约会
过生日 生日 考试 高考 考研 留学 毕业 上班 下班 放假 请假 熬夜 失眠 感冒 发烧 过敏 生病
开心 难过 伤心 委屈 紧张 焦虑 害怕 生气 无聊 想念 喜欢 讨厌 迷上 爱上 打算 决定 准备
同学 朋友 同事 闺蜜 室友 老师 老板 杭州 深圳 成都 南京 武汉
""".split()
SKIP = {"nr", "nrt", "nrfg", "x", "i", "l", "j", "nz", "zg"}
TAGS = {"t": "t", "tg": "t", "ns": "s", "v": "v", "vn": "v", "vd": "v", "vi": "v"}
# Function words and adjectives (非常, 一下, 其他, 重要): never what a conversation was about.
TAGS.update({tag: "f" for tag in ("d", "ad", "c", "p", "r", "u", "f", "m", "q", "mq", "a")})
OUT = os.path.join(os.path.dirname(__file__), "..", "src", "dream", "text", "zh_lexicon.txt")


def find_dict():
    if os.environ.get("JIEBA_DICT"):
        return os.environ["JIEBA_DICT"]
    pattern = os.path.expanduser("~/.cargo/registry/src/*/jieba-rs-0.11.0/src/data/dict.txt")
    found = glob.glob(pattern)
    if not found:
        subprocess.run(["cargo", "info", "jieba-rs@0.11.0"], check=True, capture_output=True)
        found = glob.glob(pattern)
    if not found:
        sys.exit("jieba's dict.txt not found: set JIEBA_DICT")
    return found[0]


def cjk(word):
    return all("\u4e00" <= c <= "\u9fff" for c in word)


rows = []
everyday = {}
with open(find_dict(), encoding="utf-8") as f:
    for line in f:
        parts = line.split()
        if len(parts) != 3:
            continue
        word, freq, tag = parts[0], int(parts[1]), parts[2]
        if word in EVERYDAY:
            everyday[word] = (-freq, word, tag)
        if 2 <= len(word) <= 4 and cjk(word) and tag not in SKIP:
            rows.append((-freq, word, tag))
rows.sort()
chosen = {}
for tags, quota in QUOTAS:
    for row in [r for r in rows if r[2] in tags][:quota]:
        chosen[row[1]] = row
for word in EVERYDAY:
    # A word jieba lacks gets the lowest weight and no class.
    chosen.setdefault(word, everyday.get(word, (0, word, "")))
with open(OUT, "w", encoding="utf-8") as out:
    for _, word, tag in sorted(chosen.values()):
        out.write(f"{word}/{TAGS[tag]}\n" if tag in TAGS else f"{word}\n")
print(f"{OUT}: {len(chosen)} words")
