"""The interventions' menu labels and teaching texts (probes/interventions.py) in English, Japanese and Korean.

"iv-label-<name>" is the short name for menus and checkboxes; "iv-explain-<name>" says what the intervention
reveals, or why the study notes' bug breaks the model, in 1–3 sentences a learner reads beside the result.
"""

from __future__ import annotations

LAB_TEXTS: dict[str, dict[str, str]] = {
    "iv-label-ablate_zero": {
        "en": "Zero the chosen heads",
        "ja": "選んだヘッドをゼロにする",
        "ko": "고른 헤드를 0으로 만들기",
    },
    "iv-label-ablate_mean": {
        "en": "Replace the chosen heads by their mean",
        "ja": "選んだヘッドを平均で置き換える",
        "ko": "고른 헤드를 평균으로 바꾸기",
    },
    "iv-label-no_positions": {
        "en": "Remove the positional encodings",
        "ja": "位置エンコーディングを取り除く",
        "ko": "위치 인코딩 없애기",
    },
    "iv-label-no_causal_mask": {
        "en": "Remove the causal mask",
        "ja": "因果マスクを外す",
        "ko": "인과 마스크 없애기",
    },
    "iv-label-mask_ignored": {
        "en": "Mask without effect: padding and future tokens are seen",
        "ja": "効かないマスク: パディングも未来のトークンも見える",
        "ko": "효과 없는 마스크: 패딩도 미래 토큰도 보임",
    },
    "iv-label-scale_multiplied": {
        "en": "Scores multiplied by √d_head instead of divided",
        "ja": "スコアを √d_head で割らずに掛けている",
        "ko": "점수를 √d_head로 나누지 않고 곱함",
    },
    "iv-label-scale_d_model": {
        "en": "Scores divided by √d_model instead of √d_head",
        "ja": "スコアを √d_head ではなく √d_model で割っている",
        "ko": "점수를 √d_head 대신 √d_model로 나눔",
    },
    "iv-label-target_padding_unmasked": {
        "en": "Target padding left unmasked",
        "ja": "ターゲット側のパディングをマスクしていない",
        "ko": "타깃 쪽 패딩을 가리지 않음",
    },
    "iv-explain-ablate_zero": {
        "en": "Zeroing a head removes everything it writes into the residual stream, as if it had never been trained. If the translation or a step's probability changes, the model relied on that head; if nothing changes, other heads do the same work or the head does not matter for this sentence.",
        "ja": "ヘッドをゼロにすると、そのヘッドが残差ストリームに書き込むものがすべて消え、一度も学習しなかったのと同じ状態になります。翻訳や各ステップの確率が変われば、モデルはそのヘッドに頼っていたということです。何も変わらなければ、ほかのヘッドが同じ仕事をしているか、この文ではそのヘッドが重要でないかのどちらかです。",
        "ko": "헤드를 0으로 만들면 그 헤드가 잔차 스트림에 써 넣는 것이 모두 사라져, 한 번도 학습하지 않은 것과 같아집니다. 번역이나 어떤 단계의 확률이 바뀐다면 모델이 그 헤드에 기대고 있었다는 뜻입니다. 아무것도 바뀌지 않는다면 다른 헤드가 같은 일을 하고 있거나, 이 문장에서는 그 헤드가 중요하지 않은 것입니다.",
    },
    "iv-explain-ablate_mean": {
        "en": "Mean ablation replaces the head's output at every position by its average over this sentence, so the head still adds its usual offset but no longer tells positions apart. It separates what the head computes for each token from the constant it always contributes, which zeroing would also remove.",
        "ja": "平均アブレーションでは、ヘッドの出力をすべての位置で、この文全体での平均に置き換えます。ヘッドはいつものオフセットを足し続けますが、位置ごとの違いはもう伝えません。こうして、ヘッドがトークンごとに計算している中身と、いつも足している定数 (ゼロにするとこちらも消えてしまう) を切り分けられます。",
        "ko": "평균 어블레이션은 헤드의 출력을 모든 위치에서 이 문장 전체에 대한 평균으로 바꿉니다. 헤드는 평소의 오프셋은 계속 더하지만 위치끼리의 차이는 더 이상 전하지 않습니다. 이렇게 하면 헤드가 토큰마다 계산하는 내용과, 늘 더해 주는 상수(0으로 만들면 이것까지 사라짐)를 나누어 볼 수 있습니다.",
    },
    "iv-explain-no_positions": {
        "en": 'Attention itself ignores word order: without positional encodings the encoder sees a bag of words, so "dog bites man" and "man bites dog" give the same vectors, only in a different order. The decoder can still count a little through its causal mask, but word order in the output suffers.',
        "ja": "アテンションそのものは語順を知りません。位置エンコーディングがなければエンコーダには単語の袋しか見えず、「dog bites man」と「man bites dog」は並び順が違うだけで同じベクトルになります。デコーダは因果マスクのおかげで少しは位置を数えられますが、出力の語順は崩れてしまいます。",
        "ko": '어텐션 자체는 어순을 모릅니다. 위치 인코딩이 없으면 인코더에는 단어 주머니만 보여서 "dog bites man"과 "man bites dog"은 순서만 다를 뿐 같은 벡터가 됩니다. 디코더는 인과 마스크 덕분에 위치를 조금은 셀 수 있지만, 출력의 어순은 무너집니다.',
    },
    "iv-explain-no_causal_mask": {
        "en": "The causal mask stops each target position from looking at the words after it. Decoding word by word with the key/value cache, each position is computed before any later word exists, so the translation stays the same. In a teacher-forced pass (training) the whole target is fed at once: without the mask the model can read the word it should predict, and the upper triangle of the decoder's map lights up.",
        "ja": "因果マスクは、ターゲットの各位置がそれより後ろの単語を見ないようにするものです。キー/バリューキャッシュを使って1語ずつデコードするときは、各位置は後ろの単語がまだ存在しないうちに計算されるので、翻訳は変わりません。ところが教師強制 (学習時) ではターゲット全体を一度に入力するため、マスクがないとモデルは予測すべき単語そのものを読めてしまい、デコーダのマップの上三角が明るくなります。",
        "ko": "인과 마스크는 타깃의 각 위치가 자기보다 뒤의 단어를 보지 못하게 막습니다. 키/값 캐시를 써서 한 단어씩 디코딩할 때는 각 위치가 뒤의 단어가 생기기 전에 계산되므로 번역은 그대로입니다. 하지만 교사 강요(teacher forcing, 학습할 때)에서는 타깃 전체를 한꺼번에 넣기 때문에, 마스크가 없으면 모델이 예측해야 할 단어를 그대로 읽을 수 있고 디코더 맵의 위쪽 삼각형이 밝아집니다.",
    },
    "iv-explain-mask_ignored": {
        "en": "The first of the two study notes this project grew from (short Transformers written while learning; seed000 in the model menu has its architecture, built correctly) adds the mask to the scores after the copy that softmax uses was made, so no mask applies: padding and future tokens are attended. The teacher-forced pass shows queries reading the very words they should predict; a model trained like that learns to copy instead of translate, and fails at inference.",
        "ja": "このプロジェクトのもとになった2つの学習ノート (学びながら書かれた短い Transformer の実装) の1つ目 (モデルの選択肢の seed000 がその構成を正しく作り直したもの) では、ソフトマックスが使うスコアのコピーを作ったあとでマスクを足しているため、マスクがまったく効かず、パディングも未来のトークンも見えてしまいます。教師強制のパスでは、クエリが自分の予測すべき単語そのものを読んでいるのがわかります。こうして学習したモデルは翻訳ではなくコピーを覚えてしまい、推論では失敗します。",
        "ko": "이 프로젝트가 시작된 두 학습 노트(배우면서 쓴 짧은 Transformer 구현) 중 첫 번째(모델 메뉴의 seed000이 그 구성을 올바르게 다시 만든 것)에서는 소프트맥스가 쓰는 점수의 복사본을 만든 뒤에 마스크를 더하기 때문에 마스크가 전혀 적용되지 않아, 패딩도 미래 토큰도 보입니다. 교사 강요 패스에서는 쿼리가 자신이 예측해야 할 단어를 그대로 읽는 모습이 보입니다. 이렇게 학습한 모델은 번역 대신 베끼기를 배우고, 추론 때 실패합니다.",
    },
    "iv-explain-scale_multiplied": {
        "en": "The first of the two study notes this project grew from (short Transformers written while learning; seed000 in the model menu has its architecture) multiplies the scores by √d_head instead of dividing, making them d_head times too large. Softmax of huge scores is almost one-hot: each query stares at a single key, and the gradients through softmax vanish, so training stalls.",
        "ja": "このプロジェクトのもとになった2つの学習ノート (学びながら書かれた短い Transformer の実装) の1つ目 (モデルの選択肢の seed000 と同じ構成) は、スコアを √d_head で割る代わりに掛けているので、スコアが d_head 倍も大きくなります。巨大なスコアのソフトマックスはほぼ one-hot になり、各クエリはひとつのキーだけを見つめます。さらにソフトマックスを通る勾配が消えてしまい、学習が進まなくなります。",
        "ko": "이 프로젝트가 시작된 두 학습 노트(배우면서 쓴 짧은 Transformer 구현) 중 첫 번째(모델 메뉴의 seed000과 같은 구성)는 점수를 √d_head로 나누는 대신 곱해서, 점수가 d_head배나 커집니다. 아주 큰 점수의 소프트맥스는 거의 원-핫이 되어 각 쿼리가 키 하나만 뚫어지게 봅니다. 게다가 소프트맥스를 지나는 기울기가 사라져 학습이 멈춰 버립니다.",
    },
    "iv-explain-scale_d_model": {
        "en": "The second of the two study notes this project grew from (short Transformers written while learning; seed004 in the model menu has its architecture) divides by √d_model instead of √d_head: the scores become √n_heads times too small. Softmax of small scores is almost uniform, so every head blurs over all keys and sharp alignments fade.",
        "ja": "このプロジェクトのもとになった2つの学習ノート (学びながら書かれた短い Transformer の実装) の2つ目 (モデルの選択肢の seed004 と同じ構成) は、√d_head ではなく √d_model で割っているため、スコアが √n_heads 分の1に小さくなります。小さなスコアのソフトマックスはほぼ一様になるので、どのヘッドもすべてのキーにぼんやりと重みを広げ、くっきりした対応が薄れてしまいます。",
        "ko": "이 프로젝트가 시작된 두 학습 노트(배우면서 쓴 짧은 Transformer 구현) 중 두 번째(모델 메뉴의 seed004와 같은 구성)는 √d_head 대신 √d_model로 나누어서 점수가 √n_heads분의 1로 작아집니다. 작은 점수의 소프트맥스는 거의 균등해서 모든 헤드가 모든 키에 가중치를 흐릿하게 퍼뜨리고, 뚜렷한 정렬이 희미해집니다.",
    },
    "iv-explain-target_padding_unmasked": {
        "en": "The second of the two study notes this project grew from (short Transformers written while learning; seed004 in the model menu has its architecture) masks the target only causally, not its padding. With padding at the end the causal mask hides the pads anyway, so the bug stays invisible; with padding in front (as in batched generation) real tokens attend to pads, and the same sentence translates differently depending on its batch partners.",
        "ja": "このプロジェクトのもとになった2つの学習ノート (学びながら書かれた短い Transformer の実装) の2つ目 (モデルの選択肢の seed004 と同じ構成) は、ターゲットを因果的にマスクするだけで、パディングはマスクしていません。パディングが末尾にあれば因果マスクがどのみち隠すのでバグは見えませんが、(バッチ生成のように) パディングが先頭にあると本物のトークンがパディングに注意を向け、同じ文でも一緒のバッチに入った文によって翻訳が変わってしまいます。",
        "ko": "이 프로젝트가 시작된 두 학습 노트(배우면서 쓴 짧은 Transformer 구현) 중 두 번째(모델 메뉴의 seed004와 같은 구성)는 타깃을 인과적으로만 가리고 패딩은 가리지 않습니다. 패딩이 끝에 있으면 어차피 인과 마스크가 가려 주므로 버그가 드러나지 않지만, (배치 생성처럼) 패딩이 앞에 있으면 진짜 토큰이 패딩에 어텐션을 주어, 같은 문장도 같은 배치에 든 다른 문장에 따라 다르게 번역됩니다.",
    },
}
