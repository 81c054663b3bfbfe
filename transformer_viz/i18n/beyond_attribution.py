"""The words of the attention-vs-attribution view (app/tabs/beyond_attribution.py, figures/attribution.py).

Page keys as in page.py; figure keys start with "fig-" (figures.words.t looks them up without it).
"""

from __future__ import annotations

ATTRIBUTION_TEXTS: dict[str, dict[str, str]] = {
    "tab-attribution": {"en": "Attention vs attribution", "ja": "アテンションと帰属", "ko": "어텐션과 귀속"},
    "explain-attribution": {
        "en": "Does the attention a step pays say which source words its choice depends on? Attribution asks the "
        "model directly: how much does log p(chosen token) change with each source word's embedding? "
        "**Gradient × input** multiplies the embedding by the gradient; **integrated gradients** (Sundararajan et al., "
        "2017) averages the gradient along a straight path from an all-zero embedding to the real one, and its "
        "word shares add up to the whole change of log p. The top row shows attention: cross-attention of the "
        "chosen layer (mean over heads), the head that best follows the word alignment, and rollout (that layer's "
        "attention traced back through the encoder). The table gives, per step, Spearman's ρ between each method "
        "and |integrated gradients| over the source words and ✓ when both put the same word first; the last row is "
        'the whole sentence. Jain & Wallace (2019), "Attention is not Explanation", found that attention often '
        "disagrees with such measures: a heatmap of attention is not by itself an explanation of the output.",
        "ja": "あるステップの注意の向け先は、その選択がどの原文の単語に依存したかを表しているでしょうか。帰属 "
        "(attribution) はモデルに直接たずねます。選ばれたトークンの log p は、原文の各単語の埋め込みでどれだけ変わるか。"
        "**勾配 × 入力**は埋め込みに勾配を掛けます。**積分勾配** (Sundararajan ほか, 2017) は、すべてゼロの埋め込みから"
        "本物の埋め込みまでの直線に沿って勾配を平均し、単語ごとの値を足すと log p の変化全体になります。上の段は"
        "アテンションです。選んだ層のクロスアテンション (ヘッド平均)、単語の対応にいちばん従うヘッド、そしてロールアウト"
        " (その層のアテンションをエンコーダを通してさかのぼったもの)。表はステップごとに、各方法と |積分勾配| の原文の"
        "単語にわたるスピアマンの ρ を示し、両者が同じ単語を 1 位にすれば ✓ を付けます。最後の行は文全体です。"
        "Jain & Wallace (2019)「Attention is not Explanation」は、アテンションがこうした尺度としばしば食い違うことを"
        "示しました。アテンションのヒートマップは、それだけでは出力の説明になりません。",
        "ko": "어떤 단계가 주는 어텐션은 그 선택이 어느 원문 단어에 의존했는지를 말해 줄까요? 귀속 (attribution) 은 "
        "모델에게 직접 묻습니다. 고른 토큰의 log p 는 원문 각 단어의 임베딩에 따라 얼마나 바뀔까? **기울기 × 입력**은 "
        "임베딩에 기울기를 곱합니다. **적분 기울기** (Sundararajan 외, 2017) 는 모두 0인 임베딩에서 실제 임베딩까지의 "
        "직선을 따라 기울기를 평균하며, 단어별 값을 더하면 log p 의 변화 전체가 됩니다. 위 줄은 어텐션입니다. 고른 층의 "
        "크로스 어텐션 (헤드 평균), 단어 정렬을 가장 잘 따르는 헤드, 그리고 롤아웃 (그 층의 어텐션을 인코더를 거쳐 "
        "거슬러 올라간 것). 표는 단계마다 각 방법과 |적분 기울기| 의 원문 단어에 걸친 스피어만 ρ 를 보여 주고, 둘이 같은 "
        "단어를 1위로 꼽으면 ✓ 를 붙입니다. 마지막 행은 문장 전체입니다. Jain & Wallace (2019) 「Attention is not "
        "Explanation」은 어텐션이 이런 척도와 자주 어긋난다는 것을 보였습니다. 어텐션 히트맵만으로는 출력의 설명이 "
        "되지 않습니다.",
    },
    "attribution-run": {
        "en": "Compute attribution (gradient × input, integrated gradients)",
        "ja": "帰属を計算 (勾配 × 入力、積分勾配)",
        "ko": "귀속 계산 (기울기 × 입력, 적분 기울기)",
    },
    "fig-attr-title": {
        "en": "Attention vs attribution · cross-attention layer {layer}",
        "ja": "アテンションと帰属 · クロスアテンション 層 {layer}",
        "ko": "어텐션과 귀속 · 크로스 어텐션 층 {layer}",
    },
    "fig-attr-not-yet": {
        "en": "attribution not computed yet: press the button above",
        "ja": "帰属はまだ計算していません: 上のボタンを押してください",
        "ko": "귀속은 아직 계산하지 않았습니다: 위 버튼을 누르세요",
    },
    "fig-attr-panel-attention": {
        "en": "attention L{layer}, head mean",
        "ja": "アテンション 層 {layer}、ヘッド平均",
        "ko": "어텐션 층 {layer}, 헤드 평균",
    },
    "fig-attr-panel-best_head": {
        "en": "best alignment head L{best_layer} H{best_head}",
        "ja": "対応が最良のヘッド 層 {best_layer} H{best_head}",
        "ko": "정렬이 가장 좋은 헤드 층 {best_layer} H{best_head}",
    },
    "fig-attr-panel-rollout": {
        "en": "rollout to L{layer}",
        "ja": "層 {layer} までのロールアウト",
        "ko": "층 {layer} 까지의 롤아웃",
    },
    "fig-attr-panel-integrated_gradients": {
        "en": "integrated gradients ({steps} steps)",
        "ja": "積分勾配 ({steps} ステップ)",
        "ko": "적분 기울기 ({steps}단계)",
    },
    "fig-attr-panel-gradient_x_input": {"en": "gradient × input", "ja": "勾配 × 入力", "ko": "기울기 × 입력"},
    "fig-attr-method-integrated_gradients": {"en": "integrated gradients", "ja": "積分勾配", "ko": "적분 기울기"},
    "fig-attr-method-gradient_x_input": {"en": "gradient × input", "ja": "勾配 × 入力", "ko": "기울기 × 입력"},
    "fig-attr-method-attention": {"en": "attention", "ja": "アテンション", "ko": "어텐션"},
    "fig-attr-method-best_head": {"en": "best head", "ja": "最良ヘッド", "ko": "최고 헤드"},
    "fig-attr-method-rollout": {"en": "rollout", "ja": "ロールアウト", "ko": "롤아웃"},
    "fig-attr-method-axis": {
        "en": "compared with |integrated gradients|",
        "ja": "|積分勾配| と比べる方法",
        "ko": "|적분 기울기| 와 비교하는 방법",
    },
    "fig-attr-source-axis": {"en": "source word", "ja": "原文の単語", "ko": "원문 단어"},
    "fig-attr-target-axis": {
        "en": "step: target token produced",
        "ja": "ステップ: 生成したトークン",
        "ko": "단계: 생성한 토큰",
    },
    "fig-attr-share": {"en": "share of row max", "ja": "行の最大に対する比", "ko": "행 최댓값 대비"},
    "fig-attr-share-hover": {
        "en": "share of the row's largest |value|: %{{z:+.2f}}",
        "ja": "行の最大 |値| に対する比: %{{z:+.2f}}",
        "ko": "행의 최대 |값| 대비: %{{z:+.2f}}",
    },
    "fig-attr-pair-hover": {
        "en": "step: %{{y}}<br>source word: %{{x}}",
        "ja": "ステップ: %{{y}}<br>原文の単語: %{{x}}",
        "ko": "단계: %{{y}}<br>원문 단어: %{{x}}",
    },
    "fig-attr-sentence": {"en": "whole sentence", "ja": "文全体", "ko": "문장 전체"},
    "fig-attr-rho": {"en": "Spearman ρ", "ja": "スピアマン ρ", "ko": "스피어만 ρ"},
    "fig-attr-agreement-title": {
        "en": "Agreement with integrated gradients: Spearman ρ over the source words, ✓ the same top word"
        "<br>last row: mean ρ · steps agreeing · IG ({steps} steps) sums to the change of log p within {gap:.1%}",
        "ja": "積分勾配との一致: 原文の単語にわたるスピアマン ρ、✓ は 1 位の単語が同じ"
        "<br>最後の行: ρ の平均 · 一致したステップ数 · 積分勾配 ({steps} ステップ) の合計と log p の変化の差 {gap:.1%}",
        "ko": "적분 기울기와의 일치: 원문 단어에 걸친 스피어만 ρ, ✓ 는 1위 단어가 같음"
        "<br>마지막 행: ρ 평균 · 일치한 단계 수 · 적분 기울기 ({steps}단계) 합과 log p 변화의 차 {gap:.1%}",
    },
}
