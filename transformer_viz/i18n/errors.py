"""The library's messages a user can cause, by key, in English, Japanese and Korean.

transformer_viz.errors raises these (`UserError(key, **params)`, whose str() is the English text) and
records notices with them (`Notice(key, **params)`); the UI shows the key's text in the visitor's language.
Placeholders are the raise site's parameters; `{value!r}` quotes a value as Python would. A parameter that is
itself a keyed error (a `reason`) is shown in the visitor's language too.
"""

from __future__ import annotations

from .errors_lab import LAB_MESSAGE_TEXTS

MESSAGE_TEXTS: dict[str, dict[str, str]] = {
    # ---------------------------------------------------------------- a message without a key
    "err-other": {"en": "{detail}", "ja": "エラー: {detail}", "ko": "오류: {detail}"},
    # ---------------------------------------------------------------- the sentence (translator.py)
    "err-empty": {
        "en": "the sentence is empty: type an English sentence to translate",
        "ja": "文が空です。翻訳する英語の文を入力してください",
        "ko": "문장이 비어 있습니다. 번역할 영어 문장을 입력하세요",
    },
    "err-no-model": {
        "en": "no model is available: train one (see README) or set TRANSFORMER_VIZ_HUB_MODEL",
        "ja": "使えるモデルがありません。モデルを学習するか (README 参照)、TRANSFORMER_VIZ_HUB_MODEL を設定してください",
        "ko": "사용할 수 있는 모델이 없습니다. 모델을 학습하거나(README 참고) TRANSFORMER_VIZ_HUB_MODEL을 설정하세요",
    },
    "err-text-too-long": {
        "en": "the text is too long: the model reads at most {tokens} tokens ({chars} characters); "
        "send a shorter text, e.g. one sentence at a time",
        "ja": "テキストが長すぎます。モデルが読めるのは最大 {tokens} トークン ({chars} 文字) です。"
        "短いテキスト、たとえば一度に1文ずつ送ってください",
        "ko": "텍스트가 너무 깁니다. 모델은 최대 {tokens}토큰({chars}자)까지 읽습니다. "
        "더 짧은 텍스트를, 예를 들어 한 번에 한 문장씩 보내세요",
    },
    "err-texts-too-long": {
        "en": "text {index} is too long: the model reads at most {tokens} tokens ({chars} characters); "
        "send a shorter text, e.g. one sentence at a time",
        "ja": "テキスト {index} が長すぎます。モデルが読めるのは最大 {tokens} トークン ({chars} 文字) です。"
        "短いテキスト、たとえば一度に1文ずつ送ってください",
        "ko": "텍스트 {index}이(가) 너무 깁니다. 모델은 최대 {tokens}토큰({chars}자)까지 읽습니다. "
        "더 짧은 텍스트를, 예를 들어 한 번에 한 문장씩 보내세요",
    },
    "notice-cut-tokens": {
        "en": "input cut to the model's limit of {n} tokens",
        "ja": "入力はモデルの上限 {n} トークンで切り詰めました",
        "ko": "입력을 모델의 한도인 {n}토큰에서 잘랐습니다",
    },
    "notice-cut-chars": {
        "en": "input cut to its first {n} characters",
        "ja": "入力は先頭の {n} 文字で切り詰めました",
        "ko": "입력을 앞의 {n}자에서 잘랐습니다",
    },
    "notice-output-limit": {
        "en": "the translation stopped at the limit of {n} tokens before the model ended it: raise the maximum "
        "length to see the rest",
        "ja": "モデルが終える前に、翻訳は上限の {n} トークンで止まりました。続きを見るには最大長を上げてください",
        "ko": "모델이 끝내기 전에 번역이 한도인 {n}토큰에서 멈췄습니다. 나머지를 보려면 최대 길이를 늘리세요",
    },
    "notice-unknown-pieces": {
        "en": "the model reads English; {unknown} of {total} pieces are unknown to it",
        "ja": "このモデルが読めるのは英語です。{total} 個のピースのうち {unknown} 個はモデルの知らないものです",
        "ko": "이 모델은 영어를 읽습니다. 조각 {total}개 중 {unknown}개는 모델이 모르는 것입니다",
    },
    "notice-previous-kept": {
        "en": "nothing was translated: the translation, strip and maps below, greyed out, still belong to the "
        "sentence before",
        "ja": "何も翻訳していません。下の灰色の翻訳・ストリップ・マップは前の文のものです",
        "ko": "아무것도 번역하지 않았습니다. 아래에 회색으로 보이는 번역, 스트립, 맵은 이전 문장의 것입니다",
    },
    "notice-no-pad-room": {
        "en": "no room to left-pad the target within max_len: pads cannot show",
        "ja": "max_len の範囲でターゲットの前にパディングを置く余地がないため、パディングは表示できません",
        "ko": "max_len 안에서 타깃 앞에 패딩을 둘 자리가 없어 패딩을 보여 줄 수 없습니다",
    },
    # ---------------------------------------------------------------- decoding options (decoding.py)
    "err-option-whole": {
        "en": "{name} must be a whole number, got {value!r}",
        "ja": "{name} は整数でなければなりません (入力値: {value!r})",
        "ko": "{name}은(는) 정수여야 합니다(입력값: {value!r})",
    },
    "err-option-number": {
        "en": "{name} must be a number, got {value!r}",
        "ja": "{name} は数値でなければなりません (入力値: {value!r})",
        "ko": "{name}은(는) 숫자여야 합니다(입력값: {value!r})",
    },
    "err-option-use-cache": {
        "en": "use_cache must be True or False, got {value!r}",
        "ja": "use_cache は True か False でなければなりません (入力値: {value!r})",
        "ko": "use_cache는 True 또는 False여야 합니다(입력값: {value!r})",
    },
    "err-option-seed": {
        "en": "seed must be a whole number between -2**63 and 2**63 (or None), got {value!r}",
        "ja": "シードは -2**63 から 2**63 までの整数 (または None) でなければなりません (入力値: {value!r})",
        "ko": "시드는 -2**63과 2**63 사이의 정수(또는 None)여야 합니다(입력값: {value!r})",
    },
    "err-option-strategy": {
        "en": "strategy must be one of {choices}, got {value!r}",
        "ja": "デコード方式は {choices} のどれかでなければなりません (入力値: {value!r})",
        "ko": "디코딩 방식은 {choices} 중 하나여야 합니다(입력값: {value!r})",
    },
    "err-option-max-new-tokens": {
        "en": "max_new_tokens must be at least 1, got {value!r}",
        "ja": "最大トークン数 (max_new_tokens) は1以上でなければなりません (入力値: {value!r})",
        "ko": "최대 토큰 수(max_new_tokens)는 1 이상이어야 합니다(입력값: {value!r})",
    },
    "err-option-beam-size": {
        "en": "beam_size must be between 1 and {high}, got {value!r}",
        "ja": "ビーム幅 (beam_size) は1から {high} まででなければなりません (入力値: {value!r})",
        "ko": "빔 크기(beam_size)는 1에서 {high} 사이여야 합니다(입력값: {value!r})",
    },
    "err-option-temperature": {
        "en": "temperature must be a number of at least {low}, got {value!r} (use greedy for 'no randomness')",
        "ja": "温度 (temperature) は {low} 以上の数値でなければなりません (入力値: {value!r})。"
        "ランダムさをなくすには greedy を使ってください",
        "ko": "온도(temperature)는 {low} 이상의 숫자여야 합니다(입력값: {value!r}). "
        "무작위성을 없애려면 greedy를 쓰세요",
    },
    "err-option-top-k": {
        "en": "top_k must be 0 (off) or positive, got {value!r}",
        "ja": "top_k は 0 (オフ) か正の数でなければなりません (入力値: {value!r})",
        "ko": "top_k는 0(끔) 또는 양수여야 합니다(입력값: {value!r})",
    },
    "err-option-top-p": {
        "en": "top_p must be in (0, 1], got {value!r}",
        "ja": "top_p は 0 より大きく1以下でなければなりません (入力値: {value!r})",
        "ko": "top_p는 0보다 크고 1 이하여야 합니다(입력값: {value!r})",
    },
    "err-option-length-penalty": {
        "en": "length_penalty must be in [0, 5], got {value!r}",
        "ja": "長さペナルティ (length_penalty) は0から5まででなければなりません (入力値: {value!r})",
        "ko": "길이 페널티(length_penalty)는 0에서 5 사이여야 합니다(입력값: {value!r})",
    },
    "err-option-n-alternatives": {
        "en": "n_alternatives must be between 1 and {high}, got {value!r}",
        "ja": "候補の数 (n_alternatives) は1から {high} まででなければなりません (入力値: {value!r})",
        "ko": "후보 수(n_alternatives)는 1에서 {high} 사이여야 합니다(입력값: {value!r})",
    },
    # ---------------------------------------------------------------- the app's handlers
    "err-step-outside": {
        "en": "step {step} is outside the translation (0–{last})",
        "ja": "ステップ {step} は翻訳の範囲 (0–{last}) の外です",
        "ko": "{step}단계는 번역의 범위(0–{last}) 밖입니다",
    },
    "err-not-candidate": {
        "en": "{token!r} is not one of the model's candidates at step {step}: pick one from the list",
        "ja": "{token!r} はステップ {step} のモデルの候補ではありません: 一覧から選んでください",
        "ko": "{token!r}은(는) {step}단계에서 모델의 후보가 아닙니다: 목록에서 고르세요",
    },
    "err-click": {
        "en": "cannot read a click from {value!r}",
        "ja": "クリックを読み取れません: {value!r}",
        "ko": "클릭을 읽을 수 없습니다: {value!r}",
    },
    "err-lab-nothing": {
        "en": "nothing is switched off yet: choose heads, positions or the mask first",
        "ja": "まだ何もオフにしていません。先にヘッド、位置、マスクのどれかを選んでください",
        "ko": "아직 아무것도 끄지 않았습니다. 먼저 헤드, 위치, 마스크 중 하나를 고르세요",
    },
    # ---------------------------------------------------------------- which model (hub/hub.py)
    "err-no-model-given": {
        "en": "no model given: name a checkpoint folder, a bundled name (seed000) or a Hub repo id 'owner/name'",
        "ja": "モデルが指定されていません。チェックポイントのフォルダ、同梱の名前 (seed000)、"
        "または Hub のリポジトリ ID 'owner/name' を指定してください",
        "ko": "모델이 지정되지 않았습니다. 체크포인트 폴더, 함께 제공되는 이름(seed000), "
        "또는 Hub 저장소 ID 'owner/name'을 지정하세요",
    },
    "err-default-missing": {
        "en": "the bundled checkpoint checkpoints/{name} is missing; restore it with "
        "`git checkout -- checkpoints/{name}`, or train one with "
        "`python -m transformer_viz train --preset {preset} --out checkpoints/{name}` (the default "
        "architecture; the shipped model's exact commands are in its model card)",
        "ja": "同梱のチェックポイント checkpoints/{name} がありません。"
        "`git checkout -- checkpoints/{name}` で元に戻すか、"
        "`python -m transformer_viz train --preset {preset} --out checkpoints/{name}` で学習してください "
        "(既定のアーキテクチャです。配布モデルの正確なコマンドはモデルカードにあります)",
        "ko": "함께 제공되는 체크포인트 checkpoints/{name}이(가) 없습니다. "
        "`git checkout -- checkpoints/{name}`으로 되살리거나 "
        "`python -m transformer_viz train --preset {preset} --out checkpoints/{name}`으로 학습하세요 "
        "(기본 아키텍처이며, 배포된 모델의 정확한 명령은 모델 카드에 있습니다)",
    },
    "err-unknown-model": {
        "en": "{name!r} is neither a checkpoint folder nor a Hub repo id like 'owner/name'",
        "ja": "{name!r} はチェックポイントのフォルダでも、'owner/name' のような Hub のリポジトリ ID でもありません",
        "ko": "{name!r}은(는) 체크포인트 폴더도 아니고 'owner/name' 같은 Hub 저장소 ID도 아닙니다",
    },
    "err-no-folder": {
        "en": "no checkpoint folder {name} ({parent} has no {missing!r}); as a Hub repo id: {reason}",
        "ja": "チェックポイントのフォルダ {name} がありません ({parent} に {missing!r} がありません)。"
        "Hub のリポジトリ ID としては: {reason}",
        "ko": "체크포인트 폴더 {name}이(가) 없습니다({parent}에 {missing!r}이(가) 없음). Hub 저장소 ID로서는: {reason}",
    },
    "err-repo-offline": {
        "en": "{repo} is not in the local Hugging Face cache and {switch} is set; "
        "download it once with network access (`hf download {repo}`) or use a local folder",
        "ja": "{repo} はローカルの Hugging Face キャッシュになく、{switch} が設定されています。"
        "ネットワークのある所で一度ダウンロードする (`hf download {repo}`) か、ローカルのフォルダを使ってください",
        "ko": "{repo}이(가) 로컬 Hugging Face 캐시에 없고 {switch}이 설정되어 있습니다. "
        "네트워크가 될 때 한 번 내려받거나(`hf download {repo}`) 로컬 폴더를 쓰세요",
    },
    "err-repo-offline-partial": {
        "en": "{repo} lacks {missing} in the local Hugging Face cache and {switch} is set; "
        "download it once with network access (`hf download {repo}`) or use a local folder",
        "ja": "ローカルの Hugging Face キャッシュの {repo} には {missing} がなく、{switch} が設定されています。"
        "ネットワークのある所で一度ダウンロードする (`hf download {repo}`) か、ローカルのフォルダを使ってください",
        "ko": "로컬 Hugging Face 캐시의 {repo}에 {missing}이(가) 없고 {switch}이 설정되어 있습니다. "
        "네트워크가 될 때 한 번 내려받거나(`hf download {repo}`) 로컬 폴더를 쓰세요",
    },
    "err-repo-not-found": {
        "en": "no Hub repository {repo!r} (or it is private: log in with `hf auth login`)",
        "ja": "Hub のリポジトリ {repo!r} はありません (非公開なら `hf auth login` でログインしてください)",
        "ko": "Hub 저장소 {repo!r}이(가) 없습니다(비공개라면 `hf auth login`으로 로그인하세요)",
    },
    "err-repo-download": {
        "en": "could not download {repo}: {reason} (offline? use a local folder)",
        "ja": "{repo} をダウンロードできませんでした: {reason} (オフラインならローカルのフォルダを使ってください)",
        "ko": "{repo}을(를) 내려받지 못했습니다: {reason}(오프라인이라면 로컬 폴더를 쓰세요)",
    },
    "err-repo-not-checkpoint": {
        "en": "Hub repository {repo} is not a transformer-viz checkpoint: it lacks {missing}",
        "ja": "Hub のリポジトリ {repo} は transformer-viz のチェックポイントではありません: {missing} がありません",
        "ko": "Hub 저장소 {repo}은(는) transformer-viz 체크포인트가 아닙니다: {missing}이(가) 없습니다",
    },
    **LAB_MESSAGE_TEXTS,  # the lab, forced prefixes, the API, training and configs
}
