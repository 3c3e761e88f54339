

zoo_folder
data
wscaled"Mul
scaledprob"Relu:data:wBprob