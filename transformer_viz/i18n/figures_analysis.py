"""The words of the figures that analyse a translation (steps, beam tree, heads, rollout, comparisons).

The second half of the figures' table (figures.py says how the "fig-" keys are looked up and written), in
English, Japanese and Korean.
"""

from __future__ import annotations

ANALYSIS_FIGURE_TEXTS: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------ next-token probabilities and the beam tree
    "fig-alternative": {"en": "alternative", "ja": "ほかの候補", "ko": "다른 후보"},
    "fig-chosen-token": {"en": "chosen token", "ja": "選ばれたトークン", "ko": "고른 토큰"},
    "fig-probability": {"en": "probability", "ja": "確率", "ko": "확률"},
    "fig-next-token": {"en": "next token", "ja": "次のトークン", "ko": "다음 토큰"},
    "fig-forced-prefix": {"en": " (forced prefix)", "ja": " (固定した先頭部分)", "ko": " (고정한 앞부분)"},
    "fig-topk-title": {
        "en": "Step {step}: next-token probabilities (entropy {entropy:.2f} nats){forced}",
        "ja": "ステップ {step}: 次のトークンの確率 (エントロピー {entropy:.2f} nat){forced}",
        "ko": "{step}단계: 다음 토큰의 확률 (엔트로피 {entropy:.2f} nat){forced}",
    },
    "fig-node-hover": {
        "en": "node {node} · step {step}: {token}",
        "ja": "ノード {node} · ステップ {step}: {token}",
        "ko": "노드 {node} · {step}단계: {token}",
    },
    "fig-node-log-p": {
        "en": "log P(hypothesis) = {log_p:.3f}",
        "ja": "log P(仮説) = {log_p:.3f}",
        "ko": "log P(가설) = {log_p:.3f}",
    },
    "fig-node-own": {
        "en": "this token: log p = {own:.3f} (p = {p:.3f})",
        "ja": "このトークン: log p = {own:.3f} (p = {p:.3f})",
        "ko": "이 토큰: log p = {own:.3f} (p = {p:.3f})",
    },
    "fig-node-finished": {
        "en": "finished · score = log P / lp = {score:.3f} (α = {alpha:g})",
        "ja": "完了 · スコア = log P / lp = {score:.3f} (α = {alpha:g})",
        "ko": "완료 · 점수 = log P / lp = {score:.3f} (α = {alpha:g})",
    },
    "fig-node-pruned": {
        "en": "pruned: the beam was full",
        "ja": "切り捨て: ビームがいっぱいだった",
        "ko": "잘려 나감: 빔이 가득 찼음",
    },
    "fig-node-click": {
        "en": "click to see its attention at this step",
        "ja": "クリックでこのステップのアテンションを表示",
        "ko": "누르면 이 단계의 어텐션을 보여 줌",
    },
    "fig-no-beam": {
        "en": "No beam tree: this trace was decoded with strategy {strategy}, not beam search.",
        "ja": "ビームの木はありません: このトレースはビームサーチではなく探索方法 {strategy} でデコードされました。",
        "ko": "빔 트리가 없습니다: 이 트레이스는 빔 서치가 아니라 탐색 방법 {strategy}(으)로 디코딩되었습니다.",
    },
    "fig-beam-title": {"en": "Beam search tree", "ja": "ビームサーチの木", "ko": "빔 서치 트리"},
    "fig-beam-title-size": {
        "en": "Beam search tree · beam size {size}",
        "ja": "ビームサーチの木 · ビーム幅 {size}",
        "ko": "빔 서치 트리 · 빔 크기 {size}",
    },
    "fig-edges-pruned": {"en": "pruned edges", "ja": "切り捨てた枝", "ko": "잘려 나간 가지"},
    "fig-edges-kept": {"en": "kept edges", "ja": "残った枝", "ko": "남은 가지"},
    "fig-edges-chosen": {"en": "chosen edges", "ja": "選ばれた枝", "ko": "고른 가지"},
    "fig-nodes-pruned": {"en": "pruned", "ja": "切り捨て", "ko": "잘려 나감"},
    "fig-nodes-kept": {"en": "kept in the beam", "ja": "ビームに残った", "ko": "빔에 남음"},
    "fig-nodes-chosen": {"en": "chosen translation", "ja": "選ばれた翻訳", "ko": "고른 번역"},
    "fig-start": {"en": "start", "ja": "開始", "ko": "시작"},
    "fig-step": {"en": "step", "ja": "ステップ", "ko": "단계"},
    "fig-rank": {
        "en": "rank among the step's candidates (0 = best)",
        "ja": "そのステップの候補内での順位 (0 = 最良)",
        "ko": "그 단계 후보 중의 순위 (0 = 최고)",
    },
    # ------------------------------------------------------------ what the heads do, rollout, words
    "fig-heads": {"en": "heads", "ja": "ヘッド", "ko": "헤드"},
    "fig-head-axis": {"en": "head", "ja": "ヘッド", "ko": "헤드"},
    "fig-layer-axis": {"en": "layer", "ja": "層", "ko": "층"},
    "fig-confidence": {
        "en": "confidence<br>(mean max weight)",
        "ja": "確信度<br>(最大の重みの平均)",
        "ko": "확신도<br>(최대 가중치의 평균)",
    },
    # Detector names stay as the explanation ("explain-heads") writes them, with a gloss in each language.
    "fig-label-self": {"en": "self (diagonal)", "ja": "self (対角線)", "ko": "self (대각선)"},
    "fig-label-previous": {"en": "previous token", "ja": "previous (直前のトークン)", "ko": "previous (바로 앞 토큰)"},
    "fig-label-next": {"en": "next token", "ja": "next (直後のトークン)", "ko": "next (바로 뒤 토큰)"},
    "fig-label-sink": {
        "en": "sink (one key for all)",
        "ja": "sink (全員がひとつのキー)",
        "ko": "sink (모두가 키 하나)",
    },
    "fig-label-alignment": {"en": "alignment", "ja": "alignment (単語の対応)", "ko": "alignment (단어 정렬)"},
    "fig-label-mixed": {"en": "mixed", "ja": "mixed (混合)", "ko": "mixed (혼합)"},
    # The same labels in a word, for the cells of the summary map: in the visitor's language.
    "fig-label-short-self": {"en": "self", "ja": "対角線", "ko": "대각선"},
    "fig-label-short-previous": {"en": "previous", "ja": "直前", "ko": "앞 토큰"},
    "fig-label-short-next": {"en": "next", "ja": "直後", "ko": "뒤 토큰"},
    "fig-label-short-sink": {"en": "sink", "ja": "シンク", "ko": "싱크"},
    "fig-label-short-alignment": {"en": "alignment", "ja": "対応", "ko": "정렬"},
    "fig-label-short-mixed": {"en": "mixed", "ja": "混合", "ko": "혼합"},
    "fig-summary-title": {
        "en": "{kind}<br>what each layer × head does (click one to open it)"
        "<br><sup>label: {detectors}<br>when ≥ {threshold:.2f} of queries put > ½ their weight there, else mixed</sup>",
        "ja": "{kind}<br>各層 × ヘッドの役割 (クリックすると開きます)"
        "<br><sup>ラベル: クエリの {threshold:.2f} 以上が重みの半分超を置くキーで<br>{detectors}、"
        "どれも届かなければ mixed</sup>",
        "ko": "{kind}<br>각 층 × 헤드의 역할 (누르면 열립니다)"
        "<br><sup>라벨: 쿼리의 {threshold:.2f} 이상이 가중치의 절반 넘게를 그 키에 두면<br>{detectors}, "
        "어느 것도 못 미치면 mixed</sup>",
    },
    "fig-sink-key": {
        "en": "sink key: {token} (key {k})",
        "ja": "sink のキー: {token} (キー {k})",
        "ko": "sink 키: {token} (키 {k})",
    },
    "fig-head-hover": {
        "en": "Layer {layer} · Head {head}<br>label: {label}<br>confidence {confidence:.2f} · entropy {entropy:.2f} nats"
        "<br>scores: {scores}<br>click to open",
        "ja": "層 {layer} · ヘッド {head}<br>ラベル: {label}<br>確信度 {confidence:.2f} · エントロピー {entropy:.2f} nat"
        "<br>スコア: {scores}<br>クリックで開く",
        "ko": "층 {layer} · 헤드 {head}<br>라벨: {label}<br>확신도 {confidence:.2f} · 엔트로피 {entropy:.2f} nat"
        "<br>점수: {scores}<br>누르면 열림",
    },
    "fig-raw-attention": {"en": "Raw attention", "ja": "生のアテンション", "ko": "원래 어텐션"},
    "fig-rollout": {"en": "Rollout", "ja": "ロールアウト", "ko": "롤아웃"},
    "fig-rollout-raw-panel": {
        "en": "{name} · Layer {layer} · {head}",
        "ja": "{name} · 層 {layer} · {head}",
        "ko": "{name} · 층 {layer} · {head}",
    },
    "fig-rollout-panel": {
        "en": "{name} · Layers 0–{layer} · {attn} attention + {res} residual",
        "ja": "{name} · 層 0–{layer} · {attn} アテンション + {res} 残差",
        "ko": "{name} · 층 0–{layer} · {attn} 어텐션 + {res} 잔차",
    },
    "fig-unit-word": {"en": "word", "ja": "単語", "ko": "단어"},
    "fig-unit-token": {"en": "source token", "ja": "ソース側のトークン", "ko": "소스 쪽 토큰"},
    "fig-rollout-key-raw": {"en": "key ({unit})", "ja": "キー ({unit})", "ko": "키 ({unit})"},
    "fig-rollout-key": {"en": "input {unit} (key)", "ja": "入力の{unit} (キー)", "ko": "입력 {unit} (키)"},
    "fig-rollout-query-raw": {"en": "query ({unit})", "ja": "クエリ ({unit})", "ko": "쿼리 ({unit})"},
    "fig-rollout-query": {
        "en": "position after layer {layer} (query)",
        "ja": "層 {layer} を通ったあとの位置 (クエリ)",
        "ko": "층 {layer} 통과 후의 위치 (쿼리)",
    },
    "fig-rollout-title": {
        "en": "Encoder: raw attention vs. attention rollout",
        "ja": "エンコーダ: 生のアテンションとロールアウト",
        "ko": "인코더: 원래 어텐션과 어텐션 롤아웃",
    },
    "fig-words-suffix": {"en": " · words", "ja": " · 単語", "ko": " · 단어"},
    "fig-words-title": {
        "en": "{kind} · Layer {layer} · {head} · words<br><sup>pieces merged: key weights summed, query rows averaged</sup>",
        "ja": "{kind} · 層 {layer} · {head} · 単語<br><sup>ピースを単語にまとめた図: キーの重みは合計、クエリの行は平均</sup>",
        "ko": "{kind} · 층 {layer} · {head} · 단어<br><sup>조각을 단어로 묶음: 키 가중치는 합, 쿼리 행은 평균</sup>",
    },
    # ------------------------------------------------------------ original beside changed
    "fig-original": {"en": "original", "ja": "元のモデル", "ko": "원래 모델"},
    "fig-with-intervention": {"en": "with the intervention", "ja": "介入したモデル", "ko": "개입한 모델"},
    "fig-prob-original": {
        "en": "probability of the original token",
        "ja": "元のトークンの確率",
        "ko": "원래 토큰의 확률",
    },
    "fig-prob-change": {
        "en": "change Δp (changed − original)",
        "ja": "変化 Δp (変更後 − 変更前)",
        "ko": "변화 Δp (바꾼 뒤 − 원래)",
    },
    "fig-prob-hover": {
        "en": "step {step}: {token}<br>{original}: {a:.3f}<br>{changed}: {b:.3f}<br>Δp = {delta:+.3f}"
        "<br>changed model's first choice: {top}",
        "ja": "ステップ {step}: {token}<br>{original}: {a:.3f}<br>{changed}: {b:.3f}<br>Δp = {delta:+.3f}"
        "<br>変更後のモデルの第1候補: {top}",
        "ko": "{step}단계: {token}<br>{original}: {a:.3f}<br>{changed}: {b:.3f}<br>Δp = {delta:+.3f}"
        "<br>바꾼 모델의 1순위 후보: {top}",
    },
    "fig-target-teacher-forced": {
        "en": "target token (teacher-forced: the original translation)",
        "ja": "ターゲットトークン (教師強制: 元の翻訳)",
        "ko": "타깃 토큰 (교사 강요: 원래 번역)",
    },
    "fig-prob-title": {
        "en": "Each step's probability of the original token · mean change {mean:+.1%}",
        "ja": "各ステップで元のトークンが出る確率 · 平均変化 {mean:+.1%}",
        "ko": "단계마다 원래 토큰이 나올 확률 · 평균 변화 {mean:+.1%}",
    },
    "fig-padding-correct": {
        "en": "padding masked (correct)",
        "ja": "パディングをマスク (正しい)",
        "ko": "패딩을 가림 (올바름)",
    },
    "fig-padding-bug": {
        "en": "causal mask only (the study note's bug)",
        "ja": "因果マスクだけ (学習ノートのバグ)",
        "ko": "인과 마스크만 (학습 노트의 버그)",
    },
    "fig-padding-title": {
        "en": "Decoder self-attention with {n_pad} pad tokens in front · Layer {layer} · Head {head}"
        "<br>most weight any real token puts on the pads: {a:.0%} vs {b:.0%}",
        "ja": "前に {n_pad} 個のパディングトークンを置いたデコーダの自己アテンション · 層 {layer} · ヘッド {head}"
        "<br>本物のトークンがパディングに置く重みの最大: {a:.0%} 対 {b:.0%}",
        "ko": "앞에 패딩 토큰 {n_pad}개를 둔 디코더 셀프 어텐션 · 층 {layer} · 헤드 {head}"
        "<br>진짜 토큰이 패딩에 두는 가중치의 최대: {a:.0%} 대 {b:.0%}",
    },
    "fig-padding-key": {
        "en": "key\n(decoder input: <pad> …, <s>, y1, …)",
        "ja": "キー\n(デコーダの入力: <pad> …, <s>, y1, …)",
        "ko": "키\n(디코더 입력: <pad> …, <s>, y1, …)",
    },
}
