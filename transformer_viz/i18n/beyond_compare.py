"""The words of the side-by-side view (app/tabs/beyond_compare.py): the two shipped models on one sentence."""

from __future__ import annotations

COMPARE_TEXTS: dict[str, dict[str, str]] = {
    "tab-compare-models": {"en": "Side by side", "ja": "2つのモデルを並べる", "ko": "두 모델 나란히"},
    "explain-compare-models": {
        "en": "The two shipped models translate the same sentence. seed000 normalises before each sublayer "
        "(pre-LN) and adds sinusoidal positions; seed004 normalises after it (post-LN) and learned its positions. "
        "**Compare** translates your sentence with both; the slider steps them together, and each shows its "
        "cross-attention in the page's layer and its most likely next tokens at that step. Same data, another "
        "architecture: do their heads look at the same source words?",
        "ja": "同梱の2つのモデルが同じ文を翻訳します。seed000 は各サブレイヤーの前で正規化し (pre-LN)、"
        "正弦波の位置を足します。seed004 は後で正規化し (post-LN)、位置を学習しました。"
        "**比べる** で2つのモデルがあなたの文を翻訳します。スライダーで両方を同じステップに進め、"
        "それぞれページで選んだ層のクロスアテンションと、そのステップで次に来そうなトークンを示します。"
        "データは同じで構造だけが違います。ヘッドは同じ原文の単語を見ているでしょうか?",
        "ko": "함께 제공되는 두 모델이 같은 문장을 번역합니다. seed000은 각 하위 층 앞에서 정규화하고 (pre-LN) "
        "사인파 위치를 더합니다. seed004는 뒤에서 정규화하고 (post-LN) 위치를 학습했습니다. "
        "**비교하기**를 누르면 두 모델이 문장을 번역합니다. 슬라이더는 두 모델을 같은 단계로 옮기고, "
        "각 모델은 페이지에서 고른 층의 교차 어텐션과 그 단계에서 다음에 올 만한 토큰을 보여 줍니다. "
        "데이터는 같고 구조만 다릅니다. 헤드들은 같은 원문 단어를 볼까요?",
    },
    "compare-run": {"en": "Compare", "ja": "比べる", "ko": "비교하기"},
    "compare-step": {"en": "Step of both models", "ja": "両方のモデルのステップ", "ko": "두 모델의 단계"},
    "compare-clamped": {
        "en": "{model} wrote {n} tokens: it stays at its last step, {last}.",
        "ja": "{model} が書いたトークンは {n} 個です。最後のステップ {last} のままです。",
        "ko": "{model}은(는) 토큰을 {n}개 썼습니다. 마지막 단계인 {last}단계에 머뭅니다.",
    },
    "compare-layer-clamped": {
        "en": "{model} has {n} layers: its last, layer {last}, is shown.",
        "ja": "{model} の層は {n} 個です。最後の層 {last} を示します。",
        "ko": "{model}의 층은 {n}개입니다. 마지막 층인 {last}층을 보여 줍니다.",
    },
    "compare-one-model": {
        "en": "Only one model is available ({model}): the comparison needs two.",
        "ja": "使えるモデルは1つ ({model}) だけです。比べるには2つ必要です。",
        "ko": "사용할 수 있는 모델이 하나({model})뿐입니다. 비교하려면 두 개가 필요합니다.",
    },
    "err-translate-compare": {
        "en": "translate a sentence first: the comparison translates it with both models",
        "ja": "先に文を翻訳してください。比較はその文を両方のモデルで翻訳します",
        "ko": "먼저 문장을 번역하세요. 비교는 그 문장을 두 모델로 번역합니다",
    },
}
