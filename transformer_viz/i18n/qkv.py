"""The words of "One query, real numbers" (the tab, its controls and its two figures), in English, Japanese, Korean."""

from __future__ import annotations

QKV_TEXTS: dict[str, dict[str, str]] = {
    "tab-qkv": {"en": "One query in numbers", "ja": "1 つのクエリを数値で", "ko": "쿼리 하나를 숫자로"},
    "explain-qkv": {
        "en": "One attention query worked through with the model's own numbers, for the step, layer and head "
        "chosen above (the head mean shows head 0). A vector's dimensions run down a column. **x** is what W_Q "
        "reads: the residual stream after the sublayer's LayerNorm in a pre-LN model, the stream itself in a "
        "post-LN one. **q** = x W_Q meets every key **k_j** (one column per key); q·k_j ÷ √d_head is the score, a "
        "masked key gets −∞, and the softmax turns the scores into the weights α_j. **z** = Σ α_j v_j is this "
        "head's output; the heads' z side by side (their concatenation) times W_O is what the sublayer adds to "
        "the residual stream (post-LN then normalises the sum). A 128-wide vector is folded into columns of "
        "d_head: a column's label is its first dimension. Encoder self-attention has no step: its query is the "
        "source token this head's cross-attention weighs most at the step, unless you pick another. "
        "**Click a key** (its column or its scores) to see q ∘ k_j element by element.",
        "ja": "上で選んだステップ・層・ヘッドについて、アテンションのクエリ 1 つをモデル自身の数値でたどります"
        "(ヘッド平均のときはヘッド 0)。ベクトルの次元は列に沿って縦に並びます。**x** は W_Q が読む入力です。"
        "pre-LN のモデルではサブレイヤーの LayerNorm を通した残差ストリーム、post-LN ではストリームそのものです。"
        "**q** = x W_Q がすべてのキー **k_j** (キーごとに 1 列) と出会い、q·k_j ÷ √d_head がスコアになります。"
        "マスクされたキーは −∞ になり、ソフトマックスがスコアを重み α_j に変えます。"
        "**z** = Σ α_j v_j がこのヘッドの出力で、全ヘッドの z を並べたもの (連結) に W_O を掛けたものが、"
        "サブレイヤーが残差ストリームに足す量です (post-LN ではその和を正規化します)。"
        "128 次元のベクトルは d_head ずつの列に折りたたんで表示し、列のラベルはその最初の次元です。"
        "エンコーダの自己アテンションにはステップがないので、クエリはこのヘッドのクロスアテンションが"
        "そのステップで最も重みを置くソース側のトークンです (別のトークンも選べます)。"
        "**キーをクリック** (その列かスコア) すると、q ∘ k_j を要素ごとに表示します。",
        "ko": "위에서 고른 단계·층·헤드에 대해 어텐션 쿼리 하나를 모델 자신의 숫자로 따라가 봅니다"
        "(헤드 평균이면 헤드 0). 벡터의 차원은 열을 따라 아래로 놓입니다. **x** 는 W_Q 가 읽는 입력입니다. "
        "pre-LN 모델에서는 서브레이어의 LayerNorm 을 거친 잔차 스트림, post-LN 에서는 스트림 그 자체입니다. "
        "**q** = x W_Q 가 모든 키 **k_j** (키마다 한 열) 와 만나고, q·k_j ÷ √d_head 가 점수가 됩니다. "
        "마스크된 키는 −∞ 가 되고, 소프트맥스가 점수를 가중치 α_j 로 바꿉니다. "
        "**z** = Σ α_j v_j 가 이 헤드의 출력이며, 모든 헤드의 z 를 나란히 놓은 것 (연결) 에 W_O 를 곱한 것이 "
        "서브레이어가 잔차 스트림에 더하는 값입니다 (post-LN 은 그 합을 정규화합니다). "
        "128차원 벡터는 d_head 씩의 열로 접어 보여 주며, 열의 라벨은 그 첫 차원입니다. "
        "인코더 셀프 어텐션에는 단계가 없으므로, 쿼리는 이 헤드의 크로스 어텐션이 그 단계에서 가장 무게를 두는 "
        "소스 토큰입니다 (다른 토큰도 고를 수 있습니다). "
        "**키를 누르면** (그 열이나 점수) q ∘ k_j 를 요소별로 보여 줍니다.",
    },
    "qkv-kind": {"en": "Attention", "ja": "アテンションの種類", "ko": "어텐션 종류"},
    "qkv-query": {
        "en": "Encoder query (source token)",
        "ja": "エンコーダのクエリ (ソース側のトークン)",
        "ko": "인코더 쿼리 (소스 토큰)",
    },
    "qkv-query-auto": {
        "en": "the step's strongest source token",
        "ja": "このステップで最も重みの大きいソーストークン",
        "ko": "이 단계에서 가장 무게가 큰 소스 토큰",
    },
    "fig-qkv-title": {
        "en": "One query in numbers · {kind} · Layer {layer} · Head {head} · {where}",
        "ja": "1 つのクエリを数値で · {kind} · 層 {layer} · ヘッド {head} · {where}",
        "ko": "쿼리 하나를 숫자로 · {kind} · 층 {layer} · 헤드 {head} · {where}",
    },
    "fig-qkv-source-query": {
        "en": "query: source token {position} “{token}”",
        "ja": "クエリ: ソース側のトークン {position}「{token}」",
        "ko": "쿼리: 소스 토큰 {position} “{token}”",
    },
    "fig-qkv-key-title": {
        "en": "q ∘ k for key {index} “{token}”",
        "ja": "キー {index}「{token}」の q ∘ k",
        "ko": "키 {index} “{token}” 의 q ∘ k",
    },
    "fig-qkv-sums": {
        "en": "sum Σ q ∘ k = q·k = {dot:.4f} · ÷ √{dh} = {scaled:.4f} · weight α = {weight:.4f}",
        "ja": "合計 Σ q ∘ k = q·k = {dot:.4f} · ÷ √{dh} = {scaled:.4f} · 重み α = {weight:.4f}",
        "ko": "합 Σ q ∘ k = q·k = {dot:.4f} · ÷ √{dh} = {scaled:.4f} · 가중치 α = {weight:.4f}",
    },
    "fig-qkv-product": {"en": "q ∘ k", "ja": "q ∘ k", "ko": "q ∘ k"},
    "fig-qkv-dim": {"en": "dimension", "ja": "次元", "ko": "차원"},
    "fig-qkv-head-tick": {"en": "H{head}", "ja": "H{head}", "ko": "H{head}"},
    "fig-qkv-dim-hover": {
        "en": "column %{{x}}, dimension +%{{y}}: %{{z:.4f}}",
        "ja": "列 %{{x}}、次元 +%{{y}}: %{{z:.4f}}",
        "ko": "열 %{{x}}, 차원 +%{{y}}: %{{z:.4f}}",
    },
    "fig-qkv-key-hover": {
        "en": "key %{{x}}, dimension %{{y}}: %{{z:.4f}} · click: q ∘ k",
        "ja": "キー %{{x}}、次元 %{{y}}: %{{z:.4f}} · クリック: q ∘ k",
        "ko": "키 %{{x}}, 차원 %{{y}}: %{{z:.4f}} · 클릭: q ∘ k",
    },
    "fig-qkv-score-hover": {
        "en": "key %{{x}} · %{{y}}: %{{z:.4f}} · click: q ∘ k",
        "ja": "キー %{{x}} · %{{y}}: %{{z:.4f}} · クリック: q ∘ k",
        "ko": "키 %{{x}} · %{{y}}: %{{z:.4f}} · 클릭: q ∘ k",
    },
    "fig-qkv-masked-hover": {
        "en": "key %{{x}}: masked, score {minus_inf}",
        "ja": "キー %{{x}}: マスク済み、スコア {minus_inf}",
        "ko": "키 %{{x}}: 마스크됨, 점수 {minus_inf}",
    },
    "fig-qkv-x-pre": {
        "en": "x = LayerNorm(x<sub>t</sub>)",
        "ja": "x = LayerNorm(x<sub>t</sub>) 正規化",
        "ko": "x = LayerNorm(x<sub>t</sub>) 정규화",
    },
    "fig-qkv-x-post": {
        "en": "x = x<sub>t</sub> (not normed)",
        "ja": "x = x<sub>t</sub> (正規化なし)",
        "ko": "x = x<sub>t</sub> (정규화 없음)",
    },
    "fig-qkv-keys": {"en": "K: a column per key", "ja": "K: キーごとに 1 列", "ko": "K: 키마다 한 열"},
    "fig-qkv-values": {"en": "V: a column per key", "ja": "V: キーごとに 1 列", "ko": "V: 키마다 한 열"},
    "fig-qkv-z": {"en": "z = Σ α v", "ja": "z = Σ α v", "ko": "z = Σ α v"},
    "fig-qkv-concat": {"en": "Concat(z of each head)", "ja": "Concat(各ヘッドの z)", "ko": "Concat(헤드별 z)"},
    "fig-qkv-out": {"en": "× W<sub>O</sub> = out", "ja": "× W<sub>O</sub> = 出力", "ko": "× W<sub>O</sub> = 출력"},
    "fig-qkv-before": {"en": "residual before", "ja": "足す前の残差", "ko": "더하기 전 잔차"},
    "fig-qkv-plus-out": {"en": "+ out", "ja": "+ 出力", "ko": "+ 출력"},
    "fig-qkv-sum": {"en": "= before + out", "ja": "= 前 + 出力", "ko": "= 전 + 출력"},
    "fig-qkv-after-pre": {"en": "= residual after", "ja": "= 足した後の残差", "ko": "= 더한 후 잔차"},
    "fig-qkv-after-post": {
        "en": "LayerNorm → residual after",
        "ja": "LayerNorm → 足した後の残差",
        "ko": "LayerNorm → 더한 후 잔차",
    },
    "fig-qkv-scores": {"en": "scores", "ja": "スコア", "ko": "점수"},
    "fig-qkv-masked": {"en": "masked", "ja": "マスク済み", "ko": "마스크됨"},
    "fig-qkv-dot": {"en": "q·k", "ja": "q·k", "ko": "q·k"},
    "fig-qkv-scale": {"en": "÷ √{dh}", "ja": "÷ √{dh}", "ko": "÷ √{dh}"},
    "fig-qkv-mask": {"en": "mask", "ja": "マスク", "ko": "마스크"},
    "fig-qkv-softmax": {"en": "softmax α", "ja": "ソフトマックス α", "ko": "소프트맥스 α"},
}
