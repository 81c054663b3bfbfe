"""The figures' words (titles, axis titles, legends, colour bars, hover labels) in English, Japanese and Korean.

Plain data, merged into i18n.TEXTS under keys starting with "fig-"; figures.words.t(key) looks them up in
the language of `figures.language(lang)`. Every template is passed through str.format, so Plotly's own
placeholders are written with doubled braces: "%{{z:.3f}}" reaches Plotly as "%{z:.3f}". "\n" in an axis
title becomes a line break. The English texts are the figures' original words, unchanged.
"""

from __future__ import annotations

FIGURE_TEXTS: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------ the modebar's camera button (its tooltip)
    "fig-download": {
        "en": "Download this figure as {fmt}",
        "ja": "この図を {fmt} でダウンロード",
        "ko": "이 그림을 {fmt}(으)로 다운로드",
    },
    # ------------------------------------------------------------ attention: kinds, axes, heads, steps
    "fig-kind-encoder_self": {
        "en": "Encoder self-attention",
        "ja": "エンコーダの自己アテンション",
        "ko": "인코더 셀프 어텐션",
    },
    "fig-kind-decoder_self": {
        "en": "Decoder self-attention (masked)",
        "ja": "デコーダの自己アテンション (マスク付き)",
        "ko": "디코더 셀프 어텐션 (마스크 적용)",
    },
    "fig-kind-cross": {
        "en": "Cross-attention (decoder → encoder)",
        "ja": "クロスアテンション (デコーダ → エンコーダ)",
        "ko": "크로스 어텐션 (디코더 → 인코더)",
    },
    "fig-query": {"en": "query", "ja": "クエリ", "ko": "쿼리"},
    "fig-key": {"en": "key", "ja": "キー", "ko": "키"},
    "fig-query-target": {
        "en": "query\n(target token being produced)",
        "ja": "クエリ\n(いま出力しているターゲットトークン)",
        "ko": "쿼리\n(지금 만드는 타깃 토큰)",
    },
    "fig-query-source": {
        "en": "query (source token)",
        "ja": "クエリ (ソース側のトークン)",
        "ko": "쿼리 (소스 쪽 토큰)",
    },
    "fig-key-source": {"en": "key (source token)", "ja": "キー (ソース側のトークン)", "ko": "키 (소스 쪽 토큰)"},
    "fig-pieces-note": {
        "en": "·xy continues a word; ␣ is a lone space",
        "ja": "·xy は語の続き、␣ は単独の空白",
        "ko": "·xy는 단어의 뒷부분, ␣는 홀로 있는 공백",
    },
    "fig-key-decoder": {
        "en": "key\n(decoder input: <s>, y1, y2, …)",
        "ja": "キー\n(デコーダの入力: <s>, y1, y2, …)",
        "ko": "키\n(디코더 입력: <s>, y1, y2, …)",
    },
    "fig-query-target-words": {
        "en": "query\n(target word being produced)",
        "ja": "クエリ\n(いま出力しているターゲットの単語)",
        "ko": "쿼리\n(지금 만드는 타깃 단어)",
    },
    "fig-query-source-words": {
        "en": "query (source word)",
        "ja": "クエリ (ソース側の単語)",
        "ko": "쿼리 (소스 쪽 단어)",
    },
    "fig-key-source-words": {"en": "key (source word)", "ja": "キー (ソース側の単語)", "ko": "키 (소스 쪽 단어)"},
    "fig-key-decoder-words": {
        "en": "key\n(decoder input: <s> and the target words)",
        "ja": "キー\n(デコーダの入力: <s> とターゲットの単語)",
        "ko": "키\n(디코더 입력: <s> 및 타깃 단어)",
    },
    "fig-head": {"en": "Head {head}", "ja": "ヘッド {head}", "ko": "헤드 {head}"},
    "fig-head-mean": {
        "en": "Head mean (average of {n})",
        "ja": "ヘッド平均 ({n} 個の平均)",
        "ko": "헤드 평균 ({n}개의 평균)",
    },
    "fig-producing": {
        "en": "step {step}: producing “{token}”",
        "ja": "ステップ {step}: 「{token}」を出力中",
        "ko": "{step}단계: “{token}” 생성 중",
    },
    "fig-pair-hover": {
        "en": "query: %{{y}}<br>key: %{{x}}",
        "ja": "クエリ: %{{y}}<br>キー: %{{x}}",
        "ko": "쿼리: %{{y}}<br>키: %{{x}}",
    },
    "fig-weight-hover": {"en": "weight: %{{z:.3f}}", "ja": "重み: %{{z:.3f}}", "ko": "가중치: %{{z:.3f}}"},
    "fig-weight": {"en": "weight", "ja": "重み", "ko": "가중치"},
    "fig-grid-title": {
        "en": "{kind} · Layer {layer} · Heads 0–{last} and their mean",
        "ja": "{kind} · 層 {layer} · ヘッド 0–{last} とその平均",
        "ko": "{kind} · 층 {layer} · 헤드 0–{last} 및 그 평균",
    },
    "fig-head-title": {
        "en": "{kind} · Layer {layer} · {head}",
        "ja": "{kind} · 層 {layer} · {head}",
        "ko": "{kind} · 층 {layer} · {head}",
    },
    "fig-overview-hover": {
        "en": "{name} · click to open<br>query %{{y}}, key %{{x}}: %{{z:.2f}}",
        "ja": "{name} · クリックで開く<br>クエリ %{{y}}、キー %{{x}}: %{{z:.2f}}",
        "ko": "{name} · 누르면 열림<br>쿼리 %{{y}}, 키 %{{x}}: %{{z:.2f}}",
    },
    "fig-overview-title": {
        "en": "{kind} · every Layer (rows) × Head (columns) · click one to open it",
        "ja": "{kind} · すべての層 (行) × ヘッド (列) · クリックすると大きく開きます",
        "ko": "{kind} · 모든 층(행) × 헤드(열) · 누르면 크게 열립니다",
    },
    # ------------------------------------------------------------ alignment
    "fig-align-step": {
        "en": "step {step} ≥ {level:.2f}",
        "ja": "ステップ {step} ≥ {level:.2f}",
        "ko": "{step}단계 ≥ {level:.2f}",
    },
    "fig-align-weights": {"en": "weights ≥ {level:.2f}", "ja": "重み ≥ {level:.2f}", "ko": "가중치 ≥ {level:.2f}"},
    "fig-side-source": {"en": "source {i}: {token}", "ja": "ソース {i}: {token}", "ko": "소스 {i}: {token}"},
    "fig-side-target": {"en": "target {i}: {token}", "ja": "ターゲット {i}: {token}", "ko": "타깃 {i}: {token}"},
    "fig-source-tokens": {"en": "source tokens", "ja": "ソース側のトークン", "ko": "소스 쪽 토큰"},
    "fig-target-tokens": {"en": "target tokens", "ja": "ターゲット側のトークン", "ko": "타깃 쪽 토큰"},
    "fig-source-keys": {"en": "source (keys)", "ja": "ソース (キー)", "ko": "소스 (키)"},
    "fig-target-queries": {"en": "target (queries)", "ja": "ターゲット (クエリ)", "ko": "타깃 (쿼리)"},
    "fig-alignment-title": {
        "en": "Cross-attention alignment · Layer {layer} · {head}",
        "ja": "クロスアテンションの対応 · 層 {layer} · {head}",
        "ko": "크로스 어텐션 정렬 · 층 {layer} · {head}",
    },
    # ------------------------------------------------------------ masks and the score pipeline
    "fig-mask": {"en": "mask", "ja": "マスク", "ko": "마스크"},
    "fig-mask-hover": {
        "en": "mask %{{z}} (1 = may attend, 0 = masked)",
        "ja": "マスク %{{z}} (1 = 見てよい、0 = マスク)",
        "ko": "마스크 %{{z}} (1 = 봐도 됨, 0 = 가려짐)",
    },
    "fig-masked": {"en": "masked", "ja": "マスク", "ko": "가려짐"},
    "fig-may-attend": {"en": "may attend", "ja": "見てよい", "ko": "봐도 됨"},
    "fig-encoder-padding-title": {
        "en": "Encoder padding mask<br>{n} tokens padded to {width}<br>(a longer sentence shares the batch)",
        "ja": "エンコーダのパディングマスク<br>{n} トークンを {width} までパディング<br>(もっと長い文と同じバッチに入ったとき)",
        "ko": "인코더 패딩 마스크<br>{n}개 토큰을 {width}개까지 패딩<br>(더 긴 문장과 같은 배치에 들어갔을 때)",
    },
    "fig-causal-title": {
        "en": "Decoder causal mask: no peeking at later tokens",
        "ja": "デコーダの因果マスク: 後ろのトークンはのぞけない",
        "ko": "디코더 인과 마스크: 뒤의 토큰은 엿볼 수 없음",
    },
    "fig-cross-mask-title": {
        "en": "Cross-attention mask: every source token is visible",
        "ja": "クロスアテンションのマスク: ソース側のトークンはすべて見える",
        "ko": "크로스 어텐션 마스크: 소스 쪽 토큰은 모두 보임",
    },
    "fig-pipe-scores": {
        "en": "1 · scores QKᵀ/√d<sub>k</sub>",
        "ja": "1 · スコア QKᵀ/√d<sub>k</sub>",
        "ko": "1 · 점수 QKᵀ/√d<sub>k</sub>",
    },
    "fig-pipe-mask": {
        "en": "2 · causal mask: future keys → {minus_inf}",
        "ja": "2 · 因果マスク: 未来のキー → {minus_inf}",
        "ko": "2 · 인과 마스크: 미래의 키 → {minus_inf}",
    },
    "fig-pipe-softmax": {
        "en": "3 · softmax → weights",
        "ja": "3 · ソフトマックス → 重み",
        "ko": "3 · 소프트맥스 → 가중치",
    },
    "fig-score-hover": {"en": "score: %{{z:.3f}}", "ja": "スコア: %{{z:.3f}}", "ko": "점수: %{{z:.3f}}"},
    "fig-masked-minus-inf": {"en": "masked ({minus_inf})", "ja": "マスク ({minus_inf})", "ko": "가려짐 ({minus_inf})"},
    "fig-masked-hover": {
        "en": "score: {minus_inf} (masked) → weight 0",
        "ja": "スコア: {minus_inf} (マスク) → 重み 0",
        "ko": "점수: {minus_inf} (가려짐) → 가중치 0",
    },
    "fig-scores": {"en": "scores", "ja": "スコア", "ko": "점수"},
    "fig-masked-scores": {"en": "masked scores", "ja": "マスク後のスコア", "ko": "가린 뒤의 점수"},
    "fig-weights": {"en": "weights", "ja": "重み", "ko": "가중치"},
    "fig-score": {"en": "score", "ja": "スコア", "ko": "점수"},
    "fig-pipeline-title": {
        "en": "Decoder self-attention, scores → weights · Layer {layer} · Head {head}",
        "ja": "デコーダの自己アテンション、スコア → 重み · 層 {layer} · ヘッド {head}",
        "ko": "디코더 셀프 어텐션, 점수 → 가중치 · 층 {layer} · 헤드 {head}",
    },
    # ------------------------------------------------------------ positional encodings
    "fig-pe-title": {"en": "Positional encoding", "ja": "位置エンコーディング", "ko": "위치 인코딩"},
    "fig-value": {"en": "value", "ja": "値", "ko": "값"},
    "fig-pe-hover": {
        "en": "position %{{y}}<br>dimension %{{x}}<br>value %{{z:.3f}}",
        "ja": "位置 %{{y}}<br>次元 %{{x}}<br>値 %{{z:.3f}}",
        "ko": "위치 %{{y}}<br>차원 %{{x}}<br>값 %{{z:.3f}}",
    },
    "fig-dimension-i": {"en": "dimension i", "ja": "次元 i", "ko": "차원 i"},
    "fig-position": {"en": "position", "ja": "位置", "ko": "위치"},
    "fig-dim": {"en": "dim {d}", "ja": "次元 {d}", "ko": "차원 {d}"},
    "fig-curve-hover": {
        "en": "dim {d}<br>position %{{x}}<br>value %{{y:.3f}}",
        "ja": "次元 {d}<br>位置 %{{x}}<br>値 %{{y:.3f}}",
        "ko": "차원 {d}<br>위치 %{{x}}<br>값 %{{y:.3f}}",
    },
    "fig-dimension": {"en": "dimension", "ja": "次元", "ko": "차원"},
    "fig-curves-title": {
        "en": "Positional encoding: value against position",
        "ja": "位置エンコーディング: 位置ごとの値",
        "ko": "위치 인코딩: 위치에 따른 값",
    },
    "fig-cosine": {"en": "cosine", "ja": "コサイン類似度", "ko": "코사인 유사도"},
    "fig-cosine-hover": {
        "en": "position %{{y}} · position %{{x}}<br>cosine %{{z:.3f}}",
        "ja": "位置 %{{y}} · 位置 %{{x}}<br>コサイン類似度 %{{z:.3f}}",
        "ko": "위치 %{{y}} · 위치 %{{x}}<br>코사인 유사도 %{{z:.3f}}",
    },
    "fig-similarity-title": {
        "en": "Cosine similarity between positional encodings",
        "ja": "位置エンコーディング同士のコサイン類似度",
        "ko": "위치 인코딩끼리의 코사인 유사도",
    },
    "fig-positions-of": {
        "en": "{kind} positions of {name} (first {n})",
        "ja": "{name} の{kind}位置 (先頭 {n} 個)",
        "ko": "{name}의 {kind} 위치 (앞의 {n}개)",
    },
    "fig-positional-learned": {"en": "Learned", "ja": "学習型の", "ko": "학습형"},
    "fig-positional-sinusoidal": {"en": "Sinusoidal", "ja": "正弦波の", "ko": "사인파"},
    "fig-positions-formula": {
        "en": "Sinusoidal positions, the formula at D = {width}",
        "ja": "正弦波の位置、D = {width} での公式",
        "ko": "사인파 위치, D = {width}에서의 공식",
    },
    "fig-similarity-of": {
        "en": "Cosine similarity: {title}",
        "ja": "コサイン類似度: {title}",
        "ko": "코사인 유사도: {title}",
    },
}
