"""The words of the training replay and the query–key geometry views (page and figures), in English, Japanese and
Korean. Keys starting with "fig-" are the figures' (figures.words.t), the others the page's."""

from __future__ import annotations

REPLAY_TEXTS: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------ training replay: the page
    "tab-replay": {"en": "Training replay", "ja": "学習の再生", "ko": "학습 다시 보기"},
    "explain-replay": {
        "en": "How did the model learn to attend? A training run can keep its weights at a few steps along the way "
        "(snapshots). **Replay training** feeds this translation to each snapshot as in training (teacher forcing: "
        "every snapshot reads the same tokens, so the axes stay fixed) and shows, for the snapshot the slider "
        "picks, the cross-attention of the chosen layer, what each head does, how likely each token of the "
        "translation was at every snapshot, and where the snapshot lies on the learning curve. Early snapshots "
        "spread their attention almost evenly; alignment heads appear as the loss falls.",
        "ja": "モデルはどのようにアテンションを学んだのでしょうか。学習の途中のいくつかのステップで重みを保存"
        "しておくことができます (スナップショット)。**学習を再生** を押すと、この翻訳を学習のときと同じように"
        "各スナップショットに読ませ (教師強制: どのスナップショットも同じトークンを読むので軸は変わりません)、"
        "スライダーで選んだスナップショットについて、選んだ層のクロスアテンション、各ヘッドの役割、翻訳の各"
        "トークンが各スナップショットでどれだけ確からしかったか、学習曲線のどこにあたるかを示します。初期の"
        "スナップショットはアテンションをほぼ均等に広げ、損失が下がるにつれて対応付けのヘッドが現れます。",
        "ko": "모델은 어떻게 어텐션을 배웠을까요? 학습 도중 몇몇 단계에서 가중치를 저장해 둘 수 있습니다 "
        "(스냅숏). **학습 다시 보기**를 누르면 이 번역을 학습할 때처럼 각 스냅숏에 읽히고 (교사 강요: 모든 "
        "스냅숏이 같은 토큰을 읽으므로 축이 그대로입니다), 슬라이더로 고른 스냅숏에 대해 고른 층의 교차 "
        "어텐션, 각 헤드의 역할, 번역의 각 토큰이 스냅숏마다 얼마나 그럴듯했는지, 학습 곡선의 어디쯤인지를 "
        "보여 줍니다. 초기 스냅숏은 어텐션을 거의 고르게 퍼뜨리고, 손실이 내려가면서 정렬 헤드가 나타납니다.",
    },
    "replay-run": {"en": "Replay training", "ja": "学習を再生", "ko": "학습 다시 보기"},
    "replay-snapshot": {"en": "Snapshot", "ja": "スナップショット", "ko": "스냅숏"},
    "replay-first": {
        "en": "Translate a sentence first: the replay follows its translation through training.",
        "ja": "まず文を翻訳してください。再生ではその翻訳を学習の過程に沿ってたどります。",
        "ko": "먼저 문장을 번역하세요. 다시 보기는 그 번역을 학습 과정을 따라 보여 줍니다.",
    },
    "replay-none": {
        "en": "The model {model} has no training snapshots yet: it was trained without keeping its weights along "
        "the way. A model retrained with snapshots (`train --snapshots N`) can be replayed here.",
        "ja": "モデル {model} にはまだ学習のスナップショットがありません。途中の重みを保存せずに学習されたため"
        "です。スナップショット付きで学習し直したモデル (`train --snapshots N`) ならここで再生できます。",
        "ko": "모델 {model}에는 아직 학습 스냅숏이 없습니다. 도중의 가중치를 저장하지 않고 학습했기 때문입니다. "
        "스냅숏과 함께 다시 학습한 모델(`train --snapshots N`)은 여기서 다시 볼 수 있습니다.",
    },
    "replay-ready": {
        "en": "The model {model} kept {n} snapshots during training: press **Replay training**.",
        "ja": "モデル {model} は学習中に {n} 個のスナップショットを保存しました。**学習を再生** を押してください。",
        "ko": "모델 {model}은(는) 학습 중에 스냅숏 {n}개를 저장했습니다. **학습 다시 보기**를 누르세요.",
    },
    "replay-shown": {
        "en": "Snapshot {n} of {total}: training step {step}, validation loss {loss:.3f}; the token of the "
        "translation it found least likely: “{token}” (p = {p:.3f}).",
        "ja": "スナップショット {n} / {total}: 学習ステップ {step}、検証損失 {loss:.3f}。翻訳のうち最も"
        "確からしくないとされたトークン: “{token}” (p = {p:.3f})。",
        "ko": "스냅숏 {n} / {total}: 학습 단계 {step}, 검증 손실 {loss:.3f}. 번역에서 가장 그럴듯하지 않다고 "
        "본 토큰: “{token}” (p = {p:.3f}).",
    },
    # ------------------------------------------------------------ training replay: the figures
    "fig-replay-at": {
        "en": "at training step {step} (snapshot {n} of {total}, validation loss {loss:.2f})",
        "ja": "学習ステップ {step} の時点 (スナップショット {n} / {total}、検証損失 {loss:.2f})",
        "ko": "학습 단계 {step} 시점 (스냅숏 {n} / {total}, 검증 손실 {loss:.2f})",
    },
    "fig-replay-probs-title": {
        "en": "p(token) of the final translation at each snapshot (teacher-forced)",
        "ja": "各スナップショットでの最終的な翻訳の p(トークン) (教師強制)",
        "ko": "스냅숏마다 최종 번역의 p(토큰) (교사 강요)",
    },
    "fig-replay-prob-hover": {
        "en": "%{{y}} at training step %{{x}}<br>p = %{{z:.3f}}",
        "ja": "学習ステップ %{{x}} での %{{y}}<br>p = %{{z:.3f}}",
        "ko": "학습 단계 %{{x}}의 %{{y}}<br>p = %{{z:.3f}}",
    },
    "fig-training-step": {
        "en": "training step (snapshot)",
        "ja": "学習ステップ (スナップショット)",
        "ko": "학습 단계 (스냅숏)",
    },
    "fig-training-step-log": {
        "en": "training step (log scale)",
        "ja": "学習ステップ (対数目盛)",
        "ko": "학습 단계 (로그 눈금)",
    },
    "fig-loss": {"en": "loss (nats per token)", "ja": "損失 (トークンあたり nat)", "ko": "손실 (토큰당 nat)"},
    "fig-train-loss": {"en": "training loss", "ja": "学習損失", "ko": "학습 손실"},
    "fig-valid-loss": {"en": "validation loss", "ja": "検証損失", "ko": "검증 손실"},
    "fig-snapshots": {"en": "snapshots", "ja": "スナップショット", "ko": "스냅숏"},
    "fig-loss-hover": {
        "en": "step %{{x}}: loss %{{y:.3f}}",
        "ja": "ステップ %{{x}}: 損失 %{{y:.3f}}",
        "ko": "단계 %{{x}}: 손실 %{{y:.3f}}",
    },
    "fig-loss-title": {"en": "Learning curve", "ja": "学習曲線", "ko": "학습 곡선"},
}
