"""More of the library's messages a user can cause: the lab, forced prefixes, the API, training and model configs.

transformer_viz/i18n/errors.py merges these into MESSAGE_TEXTS; the conventions are that module's.
"""

from __future__ import annotations

LAB_MESSAGE_TEXTS: dict[str, dict[str, str]] = {
    # ---------------------------------------------------------------- interventions (probes/interventions.py)
    "err-lab-ablation": {
        "en": "ablation must be one of {choices}, got {value!r}",
        "ja": "ablation は {choices} のどれかでなければなりません (入力値: {value!r})",
        "ko": "ablation은 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-lab-bug": {
        "en": "bug must be None or one of {choices}, got {value!r}",
        "ja": "bug は None か {choices} のどれかでなければなりません (入力値: {value!r})",
        "ko": "bug는 None 또는 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-lab-unknown-bug": {
        "en": "bug must be one of {choices}, got {value!r}",
        "ja": "bug は {choices} のどれかでなければなりません (入力値: {value!r})",
        "ko": "bug는 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-lab-switch": {
        "en": "{name} must be True or False, got {value!r}",
        "ja": "{name} は True か False でなければなりません (入力値: {value!r})",
        "ko": "{name}은(는) True 또는 False여야 합니다(입력값: {value!r})",
    },
    "err-lab-head-shape": {
        "en": "each ablated head is (kind, layer, head), got {entry!r}",
        "ja": "オフにするヘッドはそれぞれ (kind, layer, head) です (入力値: {entry!r})",
        "ko": "끄는 헤드는 각각 (kind, layer, head)입니다(입력값: {entry!r})",
    },
    "err-lab-head-kind": {
        "en": "ablated head kind must be one of {choices}, got {value!r}",
        "ja": "オフにするヘッドの種類は {choices} のどれかでなければなりません (入力値: {value!r})",
        "ko": "끄는 헤드의 종류는 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-lab-head-index": {
        "en": "ablated {what} must be a non-negative integer, got {value!r} in {entry!r}",
        "ja": "オフにするヘッドの {what} は0以上の整数でなければなりません ({entry!r} の {value!r})",
        "ko": "끄는 헤드의 {what}은(는) 0 이상의 정수여야 합니다({entry!r}의 {value!r})",
    },
    "err-lab-no-layer": {
        "en": "ablated layer {layer} does not exist: the model has layers 0..{last}",
        "ja": "オフにする層 {layer} はありません。モデルの層は 0..{last} です",
        "ko": "끄려는 층 {layer}은(는) 없습니다. 모델의 층은 0..{last}입니다",
    },
    "err-lab-no-head": {
        "en": "ablated head {head} does not exist: the model has heads 0..{last}",
        "ja": "オフにするヘッド {head} はありません。モデルのヘッドは 0..{last} です",
        "ko": "끄려는 헤드 {head}은(는) 없습니다. 모델의 헤드는 0..{last}입니다",
    },
    # ---------------------------------------------------------------- forced prefixes (decoding.py)
    "err-prefix-ids": {
        "en": "forced prefix has token ids that cannot be generated: {bad}",
        "ja": "強制する接頭辞に生成できないトークン ID があります: {bad}",
        "ko": "강제 접두사에 생성할 수 없는 토큰 ID가 있습니다: {bad}",
    },
    "err-prefix-eos": {
        "en": "a forced prefix may end with </s> but not contain it earlier",
        "ja": "強制する接頭辞は </s> で終わってもかまいませんが、途中に </s> を含んではいけません",
        "ko": "강제 접두사는 </s>로 끝날 수는 있지만 중간에 </s>를 포함할 수는 없습니다",
    },
    # ---------------------------------------------------------------- the API (app/page.py)
    "err-api-model": {
        "en": "unknown model {name!r}; choose one of {choices}",
        "ja": "不明なモデル {name!r} です。{choices} のどれかを選んでください",
        "ko": "알 수 없는 모델 {name!r}입니다. {choices} 중 하나를 고르세요",
    },
    # ---------------------------------------------------------------- training options (training/options.py)
    "err-train-word-dropout": {
        "en": "word_dropout must be a probability in [0, 1), got {value}",
        "ja": "word_dropout は [0, 1) の確率でなければなりません (入力値: {value})",
        "ko": "word_dropout은 [0, 1) 범위의 확률이어야 합니다(입력값: {value})",
    },
    "err-train-average": {
        "en": "average must be a number of validations (0 = off), got {value}",
        "ja": "average は検証の回数 (0 = オフ) でなければなりません (入力値: {value})",
        "ko": "average는 검증 횟수(0 = 끔)여야 합니다(입력값: {value})",
    },
    "err-train-snapshots": {
        "en": "snapshots must be a number of weight snapshots (0 = off), got {value}",
        "ja": "snapshots は重みのスナップショットの数 (0 = オフ) でなければなりません (入力値: {value})",
        "ko": "snapshots는 가중치 스냅숏의 개수(0 = 끔)여야 합니다(입력값: {value})",
    },
    "err-train-precision": {
        "en": "precision must be one of {choices}, got {value!r}",
        "ja": "precision は {choices} のいずれかでなければなりません (入力値: {value!r})",
        "ko": "precision은 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-train-at-least-one": {
        "en": "{name} must be at least 1, got {value}",
        "ja": "{name} は1以上でなければなりません (入力値: {value})",
        "ko": "{name}은(는) 1 이상이어야 합니다(입력값: {value})",
    },
    # ---------------------------------------------------------------- model configs (model/config.py)
    "err-config-positive": {
        "en": "{name} must be a positive integer, got {value!r}",
        "ja": "{name} は正の整数でなければなりません (入力値: {value!r})",
        "ko": "{name}은(는) 양의 정수여야 합니다(입력값: {value!r})",
    },
    "err-config-divisible": {
        "en": "d_model ({d_model}) must be divisible by n_heads ({n_heads}); try n_heads in {choices}",
        "ja": "d_model ({d_model}) は n_heads ({n_heads}) で割り切れなければなりません。"
        "n_heads には {choices} のどれかを試してください",
        "ko": "d_model({d_model})은 n_heads({n_heads})로 나누어떨어져야 합니다. "
        "n_heads로 {choices} 중 하나를 써 보세요",
    },
    "err-config-even": {
        "en": "sinusoidal positions need an even d_model, got {d_model}",
        "ja": "正弦波の位置エンコーディングには偶数の d_model が必要です (入力値: {d_model})",
        "ko": "사인파 위치 인코딩에는 짝수 d_model이 필요합니다(입력값: {d_model})",
    },
    "err-config-dropout": {
        "en": "dropout must be in [0, 1), got {value}",
        "ja": "dropout は [0, 1) の範囲でなければなりません (入力値: {value})",
        "ko": "dropout은 [0, 1) 범위여야 합니다(입력값: {value})",
    },
    "err-config-positional": {
        "en": "positional must be one of {choices}, got {value!r}",
        "ja": "positional は {choices} のどれかでなければなりません (入力値: {value!r})",
        "ko": "positional은 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-config-specials-distinct": {
        "en": "special token ids must be distinct, got {specials}",
        "ja": "特殊トークンの ID はすべて異なっていなければなりません (入力値: {specials})",
        "ko": "특수 토큰 ID는 모두 달라야 합니다(입력값: {specials})",
    },
    "err-config-special-outside": {
        "en": "{name}={value} is outside the vocabulary",
        "ja": "{name}={value} は語彙の範囲外です",
        "ko": "{name}={value}은(는) 어휘 범위 밖입니다",
    },
    "err-config-share": {
        "en": "share_embeddings needs src_vocab_size == tgt_vocab_size (one joint vocabulary)",
        "ja": "share_embeddings には src_vocab_size == tgt_vocab_size (共通の語彙1つ) が必要です",
        "ko": "share_embeddings에는 src_vocab_size == tgt_vocab_size(공통 어휘 하나)가 필요합니다",
    },
    "err-config-not-object": {
        "en": "a config must be a JSON object, got {kind}",
        "ja": "設定は JSON オブジェクトでなければなりません (入力: {kind})",
        "ko": "설정은 JSON 객체여야 합니다(입력: {kind})",
    },
    "err-config-unknown-fields": {
        "en": "unknown config fields {unknown}; known fields are {known}",
        "ja": "不明な設定項目 {unknown} があります。使える項目は {known} です",
        "ko": "알 수 없는 설정 항목 {unknown}이(가) 있습니다. 쓸 수 있는 항목은 {known}입니다",
    },
    "err-config-field-type": {
        "en": "config field {field!r} must be {expected}, got {value!r}",
        "ja": "設定項目 {field!r} は {expected} でなければなりません (入力値: {value!r})",
        "ko": "설정 항목 {field!r}은(는) {expected}여야 합니다(입력값: {value!r})",
    },
    "err-config-unknown-preset": {
        "en": "unknown preset {name!r}; choose one of {choices}",
        "ja": "不明なプリセット {name!r} です。{choices} のどれかを選んでください",
        "ko": "알 수 없는 프리셋 {name!r}입니다. {choices} 중 하나를 고르세요",
    },
}
