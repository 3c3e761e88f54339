
fc
X
W
BY"FC:W:X:BBY