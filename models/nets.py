"""The two networks (torch). Both take float32 BGR 0..255 and normalise inside, so the runtime only resizes.

IndexDetector: (N, 3, H, W), H and W multiples of 32 -> (N, 6, H/4, W/4): index-centre heat logit, sub-cell
offset (dx, dy), up direction (cos, sin), log(index height / 32 px). With `sliver`, a seventh channel: a heat
logit peaking on every index that shows at all, at the centre of the part that shows (a sliver of a covered
card counts), so the hand reader could count the cards of a pile whose indices it cannot read.
IndexClassifier: (N, 3, 128, 32) upright index crops -> (N, 55 + 5): card logits (54 = not a card), pips logits 0..4.
CoverNet: (N, 3, 96, 112) crops around an index, upright (`vision.geometry.crop_beside`) -> (N, 1): logit that
the index of a card lying under its card peeks out beside it, too little of it to be read (a covered card).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

N_CARDS = 54
N_CLASSES = N_CARDS + 1
N_PIPS = 5
DET_CHANNELS = 6


def cbr(i: int, o: int, k: int = 3, s: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class DW(nn.Module):
    """Depthwise 3x3 + pointwise 1x1, with a residual when the shape allows."""

    def __init__(self, i: int, o: int, s: int = 1):
        super().__init__()
        self.body = nn.Sequential(cbr(i, i, 3, s, groups=i), cbr(i, o, 1))
        self.res = s == 1 and i == o

    def forward(self, x):
        y = self.body(x)
        return x + y if self.res else y


class IndexDetector(nn.Module):
    def __init__(self, w: tuple[int, int, int, int] = (16, 32, 64, 96), sliver: bool = False):
        super().__init__()
        self.stem = cbr(3, w[0], 3, 2)                                    # /2
        self.s4 = nn.Sequential(DW(w[0], w[1], 2), DW(w[1], w[1]))          # /4
        self.s8 = nn.Sequential(DW(w[1], w[2], 2), DW(w[2], w[2]), DW(w[2], w[2]))   # /8
        self.s16 = nn.Sequential(DW(w[2], w[3], 2), DW(w[3], w[3]), DW(w[3], w[3]))  # /16
        self.up8 = cbr(w[3], w[2], 1)
        self.m8 = DW(w[2], w[2])
        self.up4 = cbr(w[2], w[1], 1)
        self.m4 = nn.Sequential(DW(w[1], w[1]), DW(w[1], w[1]))
        self.head = nn.Conv2d(w[1], DET_CHANNELS, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -4.0    # start with a near-empty heatmap (focal-loss practice)
        # The sliver channel is the index heat plus what the sliver branch adds, read from the same fused stride-4
        # features; the branch starts adding nothing.
        self.sliver = nn.Sequential(cbr(w[1], 2 * w[1], 1), DW(2 * w[1], 2 * w[1]), DW(2 * w[1], 2 * w[1]),
                                    nn.Conv2d(2 * w[1], 1, 1)) if sliver else None
        if sliver:
            nn.init.zeros_(self.sliver[-1].weight)
            nn.init.zeros_(self.sliver[-1].bias)

    def fused(self, x):
        """The stride-4 features the head (after m4) and the sliver branch read."""
        x = self.stem(x * (1 / 255.0) - 0.5)
        f4 = self.s4(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        y = self.m8(f8 + F.interpolate(self.up8(f16), scale_factor=2.0, mode="nearest"))
        return f4 + F.interpolate(self.up4(y), scale_factor=2.0, mode="nearest")

    def forward(self, x):
        y4 = self.fused(x)
        out = self.head(self.m4(y4))
        return out if self.sliver is None else torch.cat([out, out[:, :1] + self.sliver(y4)], 1)


class IndexClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            cbr(3, 16), nn.MaxPool2d(2),                  # 64 x 16
            cbr(16, 32), cbr(32, 32), nn.MaxPool2d(2),    # 32 x 8
            cbr(32, 64), cbr(64, 64), nn.MaxPool2d(2),    # 16 x 4
            cbr(64, 96), nn.MaxPool2d(2),                 # 8 x 2
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(96 * 8 * 2, 192), nn.ReLU(inplace=True))
        self.cards = nn.Linear(192, N_CLASSES)
        self.pips = nn.Linear(192, N_PIPS)

    def forward(self, x):
        f = self.fc(self.features(x * (1 / 255.0) - 0.5))
        return torch.cat([self.cards(f), self.pips(f)], 1)


COVER_LAYERS = ((16, 2), (24, 1), (32, 2), (32, 1), (48, 2), (64, 2), (96, 2))   # (channels, stride): synth7c's


class CoverNet(nn.Module):
    """Is a covered card's index peeking out beside this index? Small, so it runs on every read of a pile.
    layers: (channels, stride) of each 3x3 conv-BN-ReLU (the checkpoint records them)."""

    def __init__(self, layers=COVER_LAYERS):
        super().__init__()
        convs, ch = [], 3
        for out, stride in layers:
            convs.append(cbr(ch, out, s=stride))
            ch = out
        self.layers = tuple(tuple(x) for x in layers)
        self.features = nn.Sequential(*convs)
        self.head = nn.Linear(ch * 2, 1)

    def forward(self, x):
        f = self.features(x * (1 / 255.0) - 0.5)
        return self.head(torch.cat([f.mean((2, 3)), f.amax((2, 3))], 1))
