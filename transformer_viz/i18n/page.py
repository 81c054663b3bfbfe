"""The page's words (labels, explanations, messages) in English, Japanese and Korean.

Plain data, merged into i18n.TEXTS, where the app (transformer_viz/app) looks each one up with i18n.text(key, lang). The two study
notes this project grew from were written in Japanese and Korean; the explanations are written for a learner
in each language, not translated word by word.
"""

from __future__ import annotations

# key → {language → text}. Markdown is allowed; write tokens such as `<s>` in backticks.
PAGE_TEXTS: dict[str, dict[str, str]] = {
    "title": {
        "en": "transformer-viz: look inside a Transformer while it translates",
        "ja": "transformer-viz: 翻訳しているTransformerの中をのぞく",
        "ko": "transformer-viz: 번역하는 Transformer의 속을 들여다보기",
    },
    "intro": {
        "en": "Type an English sentence; the model translates it into German one token at a time. "
        "Step through the translation and watch every head of every layer.",
        "ja": "英語の文を入力すると、モデルがドイツ語へ1トークンずつ翻訳します。"
        "1ステップずつ進めながら、すべての層・すべてのヘッドが何を見ているかを観察しましょう。",
        "ko": "영어 문장을 입력하면 모델이 독일어로 한 토큰씩 번역합니다. "
        "한 단계씩 넘기며 모든 층, 모든 헤드가 무엇을 보는지 살펴보세요.",
    },
    "language": {"en": "Language", "ja": "言語 / Language", "ko": "언어 / Language"},
    "sentence": {"en": "English sentence", "ja": "英語の文", "ko": "영어 문장"},
    "translate": {"en": "Translate", "ja": "翻訳する", "ko": "번역하기"},
    "model": {"en": "Model", "ja": "モデル", "ko": "모델"},
    # A model in the menu, from its config: "pre-LN · sinusoidal (seed000)" (app/models.py model_label).
    "model-pre-ln": {"en": "pre-LN", "ja": "pre-LN (前置)", "ko": "pre-LN(전치)"},
    "model-post-ln": {"en": "post-LN", "ja": "post-LN (後置)", "ko": "post-LN(후치)"},
    "model-positions-sinusoidal": {"en": "sinusoidal", "ja": "正弦波の位置", "ko": "사인파 위치"},
    "model-positions-learned": {"en": "learned positions", "ja": "学習した位置", "ko": "학습한 위치"},
    "options": {"en": "Decoding options", "ja": "デコードの設定", "ko": "디코딩 설정"},
    "strategy": {"en": "Strategy", "ja": "探索方法", "ko": "탐색 방법"},
    "beam-size": {"en": "Beam size", "ja": "ビーム幅", "ko": "빔 크기"},
    "max-len": {"en": "Max new tokens", "ja": "生成する最大トークン数", "ko": "생성할 최대 토큰 수"},
    "temperature": {"en": "Temperature", "ja": "温度", "ko": "온도"},
    "top-k": {"en": "Top-k (0 = off)", "ja": "Top-k (0 = 使わない)", "ko": "Top-k (0 = 끔)"},
    "top-p": {"en": "Top-p", "ja": "Top-p", "ko": "Top-p"},
    "seed": {"en": "Seed", "ja": "乱数シード", "ko": "난수 시드"},
    "examples": {
        "en": "Examples with interesting attention",
        "ja": "アテンションが面白い例文",
        "ko": "어텐션이 흥미로운 예문",
    },
    "translation": {"en": "German translation", "ja": "ドイツ語訳", "ko": "독일어 번역"},
    "tokens": {
        "en": "Tokenisation (SentencePiece pieces)",
        "ja": "トークン化 (SentencePiece のピース)",
        "ko": "토큰화 (SentencePiece 조각)",
    },
    # the token table's columns (handlers.TOKEN_COLUMNS) and its two sides
    "tokens-side": {"en": "side", "ja": "側", "ko": "쪽"},
    "tokens-position": {"en": "position", "ja": "位置", "ko": "위치"},
    "tokens-piece": {"en": "piece", "ja": "ピース", "ko": "조각"},
    "tokens-id": {"en": "id", "ja": "ID", "ko": "ID"},
    "tokens-source": {"en": "source", "ja": "原文", "ko": "원문"},
    "tokens-target": {"en": "target", "ja": "訳文", "ko": "번역문"},
    "figures": {"en": "Figures", "ja": "図の表示", "ko": "그림 표시"},
    "look-screen": {"en": "screen", "ja": "画面用", "ko": "화면용"},
    "look-png": {"en": "slides (PNG download)", "ja": "スライド用 (PNG で保存)", "ko": "슬라이드용 (PNG 저장)"},
    "look-svg": {"en": "slides (SVG download)", "ja": "スライド用 (SVG で保存)", "ko": "슬라이드용 (SVG 저장)"},
    "units": {"en": "Tokens", "ja": "トークンの単位", "ko": "토큰 단위"},
    "units-pieces": {"en": "pieces", "ja": "ピース", "ko": "조각"},
    "units-words": {"en": "words", "ja": "単語", "ko": "단어"},
    "download": {"en": "Download trace (JSON)", "ja": "トレースを保存 (JSON)", "ko": "트레이스 저장 (JSON)"},
    "share": {"en": "Link to this view", "ja": "この画面へのリンク", "ko": "이 화면으로 가는 링크"},
    "copy": {"en": "Copy link", "ja": "リンクをコピー", "ko": "링크 복사"},
    "share-copied": {
        "en": "Link copied: it opens this sentence at this step, layer, head and tab, in this language.",
        "ja": "リンクをコピーしました。この文を、このステップ・層・ヘッド・タブ、この言語で開きます。",
        "ko": "링크를 복사했습니다. 이 문장을 이 단계·층·헤드·탭, 이 언어로 엽니다.",
    },
    "share-not-copied": {
        "en": "The browser did not let the page copy: select the link in the box and copy it yourself.",
        "ja": "ブラウザーがコピーを許可しませんでした。ボックスのリンクを選んで自分でコピーしてください。",
        "ko": "브라우저가 복사를 허용하지 않았습니다. 상자의 링크를 선택해 직접 복사하세요.",
    },
    "prev": {"en": "◀ Previous", "ja": "◀ 前へ", "ko": "◀ 이전"},
    "next": {"en": "Next ▶", "ja": "次へ ▶", "ko": "다음 ▶"},
    "play": {"en": "Play", "ja": "再生", "ko": "재생"},
    "step": {"en": "Step", "ja": "ステップ", "ko": "단계"},
    "pause": {"en": "Pause", "ja": "一時停止", "ko": "일시 정지"},
    "strip-source": {"en": "English", "ja": "英語", "ko": "영어"},
    "strip-target": {"en": "German", "ja": "ドイツ語", "ko": "독일어"},
    "at-last-step": {
        "en": "This is the last step: the translation ends here.",
        "ja": "これが最後のステップです。翻訳はここで終わります。",
        "ko": "마지막 단계입니다. 번역은 여기서 끝납니다.",
    },
    "topk": {"en": "Next-token probabilities", "ja": "次のトークンの確率", "ko": "다음 토큰의 확률"},
    "alternative": {
        "en": "Choose another token at this step",
        "ja": "このステップで別のトークンを選ぶ",
        "ko": "이 단계에서 다른 토큰 고르기",
    },
    "branch": {
        "en": "Force it and continue (branch)",
        "ja": "そのトークンに固定して続ける (分岐)",
        "ko": "그 토큰으로 고정하고 계속 (분기)",
    },
    "unbranch": {"en": "Back to the original translation", "ja": "元の翻訳に戻る", "ko": "원래 번역으로 돌아가기"},
    "layer": {"en": "Layer", "ja": "層", "ko": "층"},
    "head": {"en": "Head", "ja": "ヘッド", "ko": "헤드"},  # beside Layer: a word, so the step controls stay one row
    "group-attention": {"en": "Attention maps", "ja": "アテンションマップ", "ko": "어텐션 맵"},
    "group-analysis": {"en": "Analysis", "ja": "分析", "ko": "분석"},
    "group-experiments": {"en": "Experiments", "ja": "実験", "ko": "실험"},
    "group-model": {"en": "Inside the model", "ja": "モデルの中身", "ko": "모델의 속"},
    "group-beyond": {"en": "Beyond attention", "ja": "アテンションの先へ", "ko": "어텐션 너머"},
    "tab-cross": {"en": "Cross-attention", "ja": "クロスアテンション", "ko": "크로스 어텐션"},
    "tab-dec-self": {"en": "Decoder self-attention", "ja": "デコーダの自己アテンション", "ko": "디코더 셀프 어텐션"},
    "tab-enc-self": {"en": "Encoder self-attention", "ja": "エンコーダの自己アテンション", "ko": "인코더 셀프 어텐션"},
    "tab-overview": {"en": "Overview", "ja": "全体図", "ko": "전체 보기"},
    "tab-pe": {"en": "Positional encoding", "ja": "位置エンコーディング", "ko": "위치 인코딩"},
    "tab-masks": {"en": "Masks", "ja": "マスク", "ko": "마스크"},
    "tab-card": {"en": "Model card", "ja": "モデルカード", "ko": "모델 카드"},
    "overview-kind": {"en": "Attention", "ja": "アテンションの種類", "ko": "어텐션 종류"},
    "kind-cross": {"en": "cross", "ja": "クロス", "ko": "크로스"},
    "kind-decoder self": {"en": "decoder self", "ja": "デコーダ自己", "ko": "디코더 셀프"},
    "kind-encoder self": {"en": "encoder self", "ja": "エンコーダ自己", "ko": "인코더 셀프"},
    "overview-pick": {"en": "Open layer / head", "ja": "開く層 / ヘッド", "ko": "열 층 / 헤드"},
    "footer": {
        "en": "transformer-viz {version} · runs offline · weights trained from scratch on the Ding dictionary and "
        "the German translations of seven free games in Debian (GPL, CC BY-SA)",
        "ja": "transformer-viz {version} · オフラインで動作 · 重みは Ding 辞書と Debian の 7 つのフリーゲームの"
        "ドイツ語訳 (GPL, CC BY-SA) でゼロから学習",
        "ko": "transformer-viz {version} · 오프라인으로 동작 · 가중치는 Ding 사전과 Debian에 있는 자유 게임 7종의 "
        "독일어 번역(GPL, CC BY-SA)으로 처음부터 학습",
    },
    # ---------------------------------------------------------------- explanations
    "explain-cross": {
        "en": "Each row is one target token being produced (the query); each column is a source token (a key). "
        "Bright cells show which English pieces the decoder read when it wrote that German piece.",
        "ja": "各行は今まさに出力しようとしているドイツ語のトークン (クエリ)、各列は英語側のトークン (キー) です。"
        "明るいマスは、デコーダがそのドイツ語を書くときにどの英語のピースを読んでいたかを示します。",
        "ko": "각 행은 지금 만들어지는 독일어 토큰(쿼리), 각 열은 영어 쪽 토큰(키)입니다. "
        "밝은 칸은 디코더가 그 독일어 조각을 쓸 때 어떤 영어 조각을 읽었는지 보여 줍니다.",
    },
    "explain-dec-self": {
        "en": "The decoder reads only what it has already written: row t can look at `<s>` and the tokens before "
        "it, never ahead: every weight above the diagonal is exactly zero (the causal mask), and rows not produced yet are grey.",
        "ja": "デコーダが読めるのは、自分がすでに書いたものだけです。行 t が見られるのは `<s>` とそれより前のトークンだけで、"
        "先は見られません。対角線より上の重みはちょうど 0 (因果マスク) で、まだ生成していない行は灰色です。",
        "ko": "디코더는 이미 쓴 것만 읽을 수 있습니다. 행 t는 `<s>`와 그 앞의 토큰만 볼 수 있고 앞날은 볼 수 없습니다. "
        "대각선 위의 가중치는 정확히 0(인과 마스크)이며, 아직 생성하지 않은 행은 회색입니다.",
    },
    "explain-enc-self": {
        "en": "Every English piece looks at every other piece (no mask except padding): this is how the encoder "
        "mixes context into each token's vector.",
        "ja": "英語のピースはほかのすべてのピースを見ます (マスクはパディングだけ)。"
        "こうしてエンコーダは、各トークンのベクトルに文脈を混ぜ込みます。",
        "ko": "영어 조각 하나하나가 다른 모든 조각을 봅니다(마스크는 패딩뿐). "
        "이렇게 인코더는 각 토큰의 벡터에 문맥을 섞어 넣습니다.",
    },
    "explain-overview": {
        "en": "Every layer × head at once. Heads specialise: some look at the previous token, some at the same "
        "position, some park on `</s>` when they have nothing to do. Pick one to open it large.",
        "ja": "すべての層 × ヘッドを一度に表示します。ヘッドには役割分担があり、直前のトークンを見るもの、同じ位置を見るもの、"
        "することがないときは `</s>` に重みを置いておくものがあります。クリックすると大きく開きます。",
        "ko": "모든 층 × 헤드를 한 번에 보여 줍니다. 헤드는 역할을 나눠 맡습니다. 바로 앞 토큰을 보는 헤드, 같은 위치를 보는 헤드, "
        "할 일이 없으면 `</s>`에 가중치를 두는 헤드가 있습니다. 하나를 누르면 크게 열립니다.",
    },
    "explain-pe": {
        "en": "Positions are not words: the model adds a vector per position to each embedding. Sinusoidal encodings "
        "use waves of different frequencies (fast on the left, slow on the right); learned ones are trained. "
        "Nearby positions get similar vectors, which the similarity matrix shows as a bright band.",
        "ja": "アテンションそのものは語順を知りません。そこで位置ごとのベクトルを各埋め込みに足します。"
        "正弦波エンコーディングは周波数の違う波を使い (左ほど速く、右ほどゆっくり変化)、学習型は学習で決まります。"
        "近い位置ほど似たベクトルになり、類似度行列では明るい帯として見えます。",
        "ko": "어텐션 자체는 어순을 모릅니다. 그래서 위치마다 벡터 하나를 각 임베딩에 더합니다. "
        "사인파 인코딩은 주파수가 다른 파동을 쓰고(왼쪽은 빠르게, 오른쪽은 천천히 변함) 학습형은 학습으로 정해집니다. "
        "가까운 위치일수록 벡터가 비슷해서 유사도 행렬에 밝은 띠로 나타납니다.",
    },
    "explain-pe-compare": {
        "en": "The two bundled models side by side: seed000 adds the fixed sinusoidal table, seed004 learned "
        "its positions from data. Compare the patterns and how smoothly similarity falls off with distance.",
        "ja": "同梱の2つのモデルを並べています。seed000 は固定の正弦波テーブルを足し、seed004 は位置をデータから学習しました。"
        "模様の違いと、距離が離れるにつれて類似度がどれだけなめらかに下がるかを比べてみましょう。",
        "ko": "함께 제공되는 두 모델을 나란히 놓았습니다. seed000은 고정된 사인파 표를 더하고, seed004는 위치를 데이터에서 학습했습니다. "
        "무늬의 차이와, 거리가 멀어질수록 유사도가 얼마나 매끄럽게 떨어지는지 비교해 보세요.",
    },
    "explain-masks": {
        "en": "A mask says which keys a query may attend to (1) and which it may not (0). Masked scores become −∞ "
        "before the softmax, so their weight is exactly zero.",
        "ja": "マスクは、クエリがどのキーを見てよいか (1)、見てはいけないか (0) を決めます。"
        "マスクされたスコアはソフトマックスの前に −∞ になるので、その重みはちょうど 0 になります。",
        "ko": "마스크는 쿼리가 어떤 키를 봐도 되는지(1), 보면 안 되는지(0)를 정합니다. "
        "가려진 점수는 소프트맥스 전에 −∞가 되므로 그 가중치는 정확히 0입니다.",
    },
    "tab-heads": {"en": "What the heads do", "ja": "ヘッドの役割", "ko": "헤드의 역할"},
    "tab-rollout": {"en": "Rollout and words", "ja": "ロールアウトと単語", "ko": "롤아웃과 단어"},
    "tab-beam": {"en": "Beam search", "ja": "ビームサーチ", "ko": "빔 서치"},
    "explain-heads": {
        "en": "One cell per head: its colour is the head's confidence (how much weight its strongest key gets, "
        "not counting `</s>`), its text a label from simple detectors: **self** (looks at its own position), "
        "**previous** / **next** (the neighbour), **sink** (parks on one key such as `</s>` from every query), "
        "**alignment** (cross-attention that follows the word alignment). A detector's score is the share of queries "
        "that put more than half of their weight on its key; the cell shows the best one, or **mixed** when fewer "
        "than a third of the queries do. "
        "Hover for entropy and every score; click a cell to open the head.",
        "ja": "1マスが1ヘッドです。色はそのヘッドの確信度 (`</s>` を除き、いちばん強いキーにどれだけ重みを置くか)、"
        "文字は簡単な判定器によるラベルです。**self** (自分の位置を見る)、**previous** / **next** (隣を見る)、"
        "**sink** (どのクエリからも `</s>` などひとつのキーに重みを預ける)、**alignment** (単語の対応に沿うクロスアテンション) です。"
        "判定器のスコアは、重みの半分超をそのキーに置くクエリの割合です。マスには最良のスコアが出て、"
        "どの判定器もクエリの 3 分の 1 に届かなければ **mixed** です。マウスを重ねるとエントロピーと各スコア、クリックするとそのヘッドが開きます。",
        "ko": "한 칸이 헤드 하나입니다. 색은 그 헤드의 확신도(`</s>`를 빼고 가장 강한 키에 가중치를 얼마나 두는지), "
        "글자는 간단한 판별기가 붙인 이름입니다. **self**(자기 위치를 봄), **previous** / **next**(이웃을 봄), "
        "**sink**(모든 쿼리가 `</s>` 같은 키 하나에 가중치를 맡김), **alignment**(단어 정렬을 따르는 크로스 어텐션)입니다. "
        "판별기의 점수는 가중치의 절반 넘게를 그 키에 두는 쿼리의 비율입니다. 칸에는 가장 높은 점수가 나오고, "
        "어느 판별기도 쿼리의 3분의 1에 못 미치면 **mixed**입니다. 마우스를 올리면 엔트로피와 점수가, 누르면 그 헤드가 열립니다.",
    },
    "explain-rollout": {
        "en": "Raw attention shows one layer. But the residual connection carries each token's own vector past "
        "every layer, so attention rollout (Abnar & Zuidema, 2020) mixes ½ attention (mean over heads) with ½ identity, "
        "renormalises the rows and multiplies the layers: row i estimates how much of each input token has flowed into "
        "position i by this layer.",
        "ja": "生のアテンションは1層分しか表しません。ところが残差接続のおかげで各トークン自身のベクトルはすべての層を素通りします。"
        "アテンション・ロールアウト (Abnar & Zuidema, 2020) は ½ アテンション (ヘッド平均) と ½ 単位行列を混ぜ、行を正規化して"
        "層ごとに掛け合わせます。行 i は、この層までに各入力トークンの情報がどれだけ位置 i に流れ込んだかの見積もりです。",
        "ko": "원래 어텐션은 한 층만 보여 줍니다. 그런데 잔차 연결 덕분에 각 토큰 자신의 벡터는 모든 층을 그대로 지나갑니다. "
        "어텐션 롤아웃(Abnar & Zuidema, 2020)은 ½ 어텐션(헤드 평균)과 ½ 단위 행렬을 섞고 행을 정규화한 뒤 층마다 곱합니다. "
        "행 i는 이 층까지 각 입력 토큰의 정보가 위치 i로 얼마나 흘러들었는지에 대한 추정입니다.",
    },
    "explain-words": {
        "en": "The same cross-attention with SentencePiece pieces merged into words (a piece starting with ▁ starts a word): "
        "the weights a German word's pieces give to an English word's pieces are added up over the English pieces and "
        "averaged over the German ones, so each row still sums to 1.",
        "ja": "同じクロスアテンションを、SentencePiece のピースを単語にまとめて表示します (▁ で始まるピースが単語の始まり)。"
        "英語側のピースへの重みは足し合わせ、ドイツ語側のピースについては平均するので、各行の合計は 1 のままです。",
        "ko": "같은 크로스 어텐션을 SentencePiece 조각을 단어로 묶어 보여 줍니다(▁로 시작하는 조각이 단어의 시작). "
        "영어 쪽 조각에 준 가중치는 더하고 독일어 쪽 조각에 대해서는 평균하므로 각 행의 합은 여전히 1입니다.",
    },
    "explain-beam": {
        "en": "Beam search keeps the best few partial translations at each step instead of only the single best token. "
        "Each node is a token with its total log-probability; grey nodes were pruned, the highlighted path is the "
        "translation it returned. Choose the strategy *beam* under Decoding options, then click a node to see the "
        "cross-attention when that token was chosen.",
        "ja": "ビームサーチは、各ステップでいちばん良いトークンひとつだけでなく、有望な途中訳をいくつか残しながら進みます。"
        "各ノードはトークンとその累積対数確率で、灰色のノードは途中で切り捨てられたもの、強調された道が最終的に返した訳です。"
        "デコードの設定で探索方法を *beam* にしてから、ノードをクリックすると、そのトークンを選んだときのクロスアテンションが見られます。",
        "ko": "빔 서치는 단계마다 가장 좋은 토큰 하나만이 아니라 유망한 중간 번역 몇 개를 남기며 나아갑니다. "
        "각 노드는 토큰과 그 누적 로그 확률이고, 회색 노드는 도중에 잘려 나간 것, 강조된 길이 최종적으로 돌려준 번역입니다. "
        "디코딩 설정에서 탐색 방법을 *beam*으로 고른 뒤 노드를 누르면 그 토큰을 골랐을 때의 크로스 어텐션을 볼 수 있습니다.",
    },
    "beam-node": {
        "en": "Node {node}, step {step}: the beam had written **{tokens}**",
        "ja": "ノード {node}、ステップ {step}: ビームはここまで **{tokens}** と書いていました",
        "ko": "노드 {node}, {step}단계: 빔은 여기까지 <strong>{tokens}</strong>라고 썼습니다",
    },
    "tab-whatif": {"en": "What if?", "ja": "もし変えたら?", "ko": "바꿔 보면?"},
    "tab-bugs": {"en": "Bugs made while learning", "ja": "学びながら生まれたバグ", "ko": "배우면서 생긴 버그"},
    "explain-whatif": {
        "en": "Change the model for this one sentence and compare. Pick heads to switch off, remove the positional encodings or lift the causal mask, then run: you get the new translation beside the original, each step's probability of the original token with and without the change (teacher-forced: the original translation fed in at once, as in training), and the attention maps side by side for the layer and head chosen above. The shared model is never modified.",
        "ja": "この1文についてだけモデルを変えて、結果を比べます。オフにするヘッドを選ぶ、位置エンコーディングを取り除く、因果マスクを外す、のいずれかをしてから実行してください。元の翻訳と並べて新しい翻訳が表示され、各ステップで元のトークンが出る確率の変更前と変更後 (教師強制: 学習時と同じく元の翻訳を一度に入力)、そして上で選んだ層とヘッドのアテンションマップが並んで表示されます。共有のモデル自体は決して変更されません。",
        "ko": "이 문장 하나에 대해서만 모델을 바꿔 보고 결과를 비교합니다. 끌 헤드를 고르거나, 위치 인코딩을 없애거나, 인과 마스크를 푼 다음 실행하세요. 원래 번역 옆에 새 번역이 나오고, 단계마다 원래 토큰의 확률을 바꾸기 전과 후로 보여 주며(교사 강요: 학습할 때처럼 원래 번역을 한꺼번에 넣음), 위에서 고른 층과 헤드의 어텐션 맵을 나란히 보여 줍니다. 공유 모델 자체는 절대 바뀌지 않습니다.",
    },
    "explain-bugs": {
        "en": "This project grew from two study notes: two short Transformer implementations written while learning, one pre-LN with sinusoidal positions (seed000 in the model menu), one post-LN with learned positions (seed004). Each had bugs that no error message reveals; the models here have them fixed. Switch one back on in the trained model and see what it does to the attention and the translation; the correct model stays beside it.",
        "ja": "このプロジェクトは2つの学習ノートから始まりました。学びながら書かれた短い Transformer の実装で、ひとつは pre-LN と正弦波の位置 (モデルの選択肢の seed000)、もうひとつは post-LN と学習した位置 (seed004) です。どちらにもエラーメッセージでは見つからないバグがあり、ここのモデルでは直してあります。学習済みモデルでそのひとつをもう一度オンにして、アテンションと翻訳がどうなるかを見てみましょう。正しいモデルもすぐ隣に表示されます。",
        "ko": "이 프로젝트는 두 학습 노트에서 시작했습니다. 배우면서 쓴 짧은 Transformer 구현으로, 하나는 pre-LN에 사인파 위치(모델 메뉴의 seed000), 다른 하나는 post-LN에 학습한 위치(seed004)입니다. 둘 다 오류 메시지로는 드러나지 않는 버그가 있었고, 여기의 모델에서는 고쳐 두었습니다. 학습된 모델에서 그중 하나를 다시 켜고 어텐션과 번역이 어떻게 되는지 보세요. 올바른 모델도 바로 옆에 함께 나옵니다.",
    },
    "ablate-enc": {
        "en": "Encoder self-attention heads to switch off",
        "ja": "オフにするエンコーダ自己アテンションのヘッド",
        "ko": "끌 인코더 셀프 어텐션 헤드",
    },
    "ablate-dec": {
        "en": "Decoder self-attention heads to switch off",
        "ja": "オフにするデコーダ自己アテンションのヘッド",
        "ko": "끌 디코더 셀프 어텐션 헤드",
    },
    "ablate-cross": {
        "en": "Cross-attention heads to switch off",
        "ja": "オフにするクロスアテンションのヘッド",
        "ko": "끌 크로스 어텐션 헤드",
    },
    "ablation": {"en": "How to switch a head off", "ja": "ヘッドのオフのしかた", "ko": "헤드를 끄는 방법"},
    "ablation-zero": {"en": "zero (output 0)", "ja": "ゼロ (出力を 0 に)", "ko": "0 (출력을 0으로)"},
    "ablation-mean": {
        "en": "mean (its average output)",
        "ja": "平均 (そのヘッドの平均出力)",
        "ko": "평균 (그 헤드의 평균 출력)",
    },
    "whatif-run": {"en": "Run with these changes", "ja": "この変更で実行", "ko": "이 변경으로 실행"},
    "bug-run": {"en": "Switch the bug on", "ja": "バグをオンにする", "ko": "버그 켜기"},
    "bug": {"en": "Bug", "ja": "バグ", "ko": "버그"},
    "whatif-original": {"en": "Original translation", "ja": "元の翻訳", "ko": "원래 번역"},
    "whatif-changed": {"en": "Translation with the change", "ja": "変更後の翻訳", "ko": "바꾼 뒤의 번역"},
    "whatif-kind": {"en": "Maps", "ja": "表示するマップ", "ko": "볼 맵"},
    "whatif-same": {
        "en": "The translation did not change.",
        "ja": "翻訳は変わりませんでした。",
        "ko": "번역은 바뀌지 않았습니다.",
    },
    "whatif-diff": {
        "en": "The translation changes from step {step} on.",
        "ja": "ステップ {step} から翻訳が変わります。",
        "ko": "{step}단계부터 번역이 달라집니다.",
    },
    "whatif-dp": {
        "en": "Mean change in each original token's probability (teacher-forced): {dp}",
        "ja": "元の各トークンの確率の平均変化 (教師強制): {dp}",
        "ko": "원래 각 토큰의 확률의 평균 변화(교사 강요): {dp}",
    },
    "pad-weight": {
        "en": "The real target tokens put up to {buggy} of their attention on the {k} pad tokens in front (correct mask: {correct}).",
        "ja": "本物のターゲットトークンは、前に置かれた {k} 個のパディングトークンにアテンションの最大 {buggy} を向けていました (正しいマスクでは {correct})。",
        "ko": "진짜 타깃 토큰은 앞에 놓인 패딩 토큰 {k}개에 어텐션의 최대 {buggy}를 주었습니다(올바른 마스크: {correct}).",
    },
    # ---------------------------------------------------------------- messages
    # Korean particles follow the token directly: CommonMark does not close "**" between punctuation and a letter
    # ("**.**을"), so the Korean labels use <strong>.
    "step-label": {
        "en": "Step {step} (token {n} of {total}): the model produced **{token}**{forced} with p = {prob:.2f}; entropy {entropy:.2f} nats",
        "ja": "ステップ {step} ({total} トークン中 {n} 番目): モデルは **{token}**{forced} を p = {prob:.2f} で出力しました。エントロピー {entropy:.2f} nat",
        "ko": "{step}단계 (전체 {total}개 중 {n}번째 토큰): 모델이 <strong>{token}</strong>{forced}을(를) p = {prob:.2f}로 출력했습니다. 엔트로피 {entropy:.2f} nat",
    },
    "forced": {"en": " (forced)", "ja": " (固定)", "ko": " (고정)"},
    "branch-info": {"en": "**Branch:** {branches}", "ja": "**分岐:** {branches}", "ko": "**분기:** {branches}"},
    "branch-step": {
        "en": "step {step}: {old} → {new}",
        "ja": "ステップ {step}: {old} → {new}",
        "ko": "{step}단계: {old} → {new}",
    },
    "err-translate-first": {
        "en": "translate a sentence and choose a token first",
        "ja": "先に文を翻訳して、トークンを選んでください",
        "ko": "먼저 문장을 번역하고 토큰을 고르세요",
    },
    "err-translate-lab": {
        "en": "translate a sentence first: the lab compares it without and with the change",
        "ja": "先に文を翻訳してください。ラボはその文を変更なしと変更ありで比べます",
        "ko": "먼저 문장을 번역하세요. 실험실은 그 문장을 변경 없이, 그리고 변경을 넣어 비교합니다",
    },
}
